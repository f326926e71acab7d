import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Fails the build when a test class of a module was not executed by Surefire: a name that Surefire's includes do not
 * match makes its tests silently never run.
 *
 * <p>A test class is a concrete class under the module's test output directory that declares, or inherits from a class
 * or interface there, a method annotated {@code @Test}, {@code @RepeatedTest}, {@code @ParameterizedTest},
 * {@code @TestFactory}, {@code @TestTemplate} (JUnit Jupiter), {@code @Property} or {@code @Example} (jqwik) or
 * {@code @Test} (JUnit 4), or that holds a {@code @Nested} class. A nested class counts as part of its top-level class.
 * It was executed if a {@code TEST-*.xml} report Surefire wrote during this build names it (a class whose tests are all
 * disabled or skipped by an assumption is reported too). The annotations are found in the class files' constant pools
 * (the JVM class file format, JVMS chapter 4), so nothing but a JDK is needed.
 *
 * <p>Run from Maven with the source launcher ({@code java CheckTestsRan.java key=value...}, JEP 330). Arguments:
 * {@code module}, {@code testClasses} (the test output directory), {@code reports} (Surefire's reports directory),
 * {@code buildStarted} (an ISO-8601 instant: older reports are ignored), and the properties that skip or narrow the
 * test run ({@code skipTests}, {@code maven.test.skip}, {@code maven.test.skip.exec}, {@code test}, {@code groups},
 * {@code excludedGroups}), any of which set skips the check. A value Maven left as {@code ${...}} counts as not set.
 * Exits with status 1, naming each class, when a test class was not executed; with status 2 on bad arguments.
 */
public class CheckTestsRan {

	private static final String PREFIX = "[check-tests-ran] ";

	private static final Set<String> TEST_ANNOTATIONS = Set.of("Lorg/junit/jupiter/api/Test;",
			"Lorg/junit/jupiter/api/RepeatedTest;", "Lorg/junit/jupiter/api/TestFactory;",
			"Lorg/junit/jupiter/api/TestTemplate;", "Lorg/junit/jupiter/params/ParameterizedTest;",
			"Lorg/junit/jupiter/api/Nested;", "Lnet/jqwik/api/Property;", "Lnet/jqwik/api/Example;",
			"Lorg/junit/Test;");

	private static final List<String> SKIPPING_FLAGS = List.of("skipTests", "maven.test.skip", "maven.test.skip.exec");

	private static final List<String> NARROWING_VALUES = List.of("test", "groups", "excludedGroups");

	private static final int ACC_INTERFACE = 0x0200;

	private static final int ACC_ABSTRACT = 0x0400;

	private static final Pattern REPORTED_CLASS = Pattern
		.compile("<(?:testsuite\\b[^>]*?\\sname|testcase\\b[^>]*?\\sclassname)=\"([^\"]+)\"");

	private record ClassInfo(String name, String superName, List<String> interfaces, int access,
			boolean declaresTests) {

		boolean concrete() {
			return (this.access & (ACC_INTERFACE | ACC_ABSTRACT)) == 0;
		}

	}

	public static void main(String[] args) {
		Map<String, String> arguments = new HashMap<>();
		for (String arg : args) {
			int eq = arg.indexOf('=');
			if (eq < 1) {
				System.err.println(PREFIX + "expected key=value, got: " + arg);
				System.exit(2);
			}
			String value = arg.substring(eq + 1).trim();
			if (!value.isEmpty() && !value.startsWith("${")) {
				arguments.put(arg.substring(0, eq), value);
			}
		}
		String module = arguments.getOrDefault("module", "?");
		for (String flag : SKIPPING_FLAGS) {
			if (arguments.containsKey(flag) && !"false".equalsIgnoreCase(arguments.get(flag))) {
				System.out.println(PREFIX + module + ": skipped (" + flag + ")");
				return;
			}
		}
		for (String narrowing : NARROWING_VALUES) {
			if (arguments.containsKey(narrowing)) {
				System.out.println(PREFIX + module + ": skipped (-D" + narrowing + " selects the tests to run)");
				return;
			}
		}
		if (!arguments.containsKey("testClasses") || !arguments.containsKey("reports")) {
			System.err.println(PREFIX + "missing testClasses= or reports=");
			System.exit(2);
		}
		Path testClasses = Path.of(arguments.get("testClasses"));
		if (!Files.isDirectory(testClasses)) {
			System.out.println(PREFIX + module + ": no test classes");
			return;
		}
		Set<String> tests = testClasses(readClasses(testClasses));
		Set<String> reported = reportedClasses(Path.of(arguments.get("reports")), buildStarted(arguments));
		Set<String> missing = new TreeSet<>(tests);
		missing.removeAll(reported);
		if (missing.isEmpty()) {
			System.out.println(PREFIX + module + ": all " + tests.size() + " test classes were executed by Surefire");
			return;
		}
		StringBuilder message = new StringBuilder(PREFIX).append(module)
			.append(": ")
			.append(missing.size())
			.append(" test class(es) were not executed by Surefire (no TEST-*.xml report of this build names them):");
		for (String name : missing) {
			message.append(System.lineSeparator()).append("    ").append(name);
		}
		message.append(System.lineSeparator())
			.append("  Surefire runs classes named Test*, *Test, *Tests or *TestCase unless the module's <includes> say")
			.append(" otherwise: rename the class or add it to the includes.");
		System.err.println(message);
		System.exit(1);
	}

	private static Instant buildStarted(Map<String, String> arguments) {
		String value = arguments.get("buildStarted");
		if (value == null) {
			return Instant.EPOCH;
		}
		try {
			return Instant.parse(value);
		}
		catch (DateTimeParseException ex) {
			System.out.println(PREFIX + "cannot parse buildStarted=" + value + ": every report counts");
			return Instant.EPOCH;
		}
	}

	/** The top-level binary names of the concrete test classes. */
	private static Set<String> testClasses(Map<String, ClassInfo> classes) {
		Set<String> tests = new TreeSet<>();
		for (ClassInfo info : classes.values()) {
			if (!info.concrete() || !hasTests(info, classes, new HashSet<>())) {
				continue;
			}
			String topLevel = topLevel(info.name());
			ClassInfo outer = classes.get(topLevel);
			if (outer == null || outer.concrete()) {
				tests.add(topLevel);
			}
		}
		return tests;
	}

	private static boolean hasTests(ClassInfo info, Map<String, ClassInfo> classes, Set<String> seen) {
		if (info == null || !seen.add(info.name())) {
			return false;
		}
		if (info.declaresTests()) {
			return true;
		}
		if (hasTests(classes.get(info.superName()), classes, seen)) {
			return true;
		}
		for (String implemented : info.interfaces()) {
			if (hasTests(classes.get(implemented), classes, seen)) {
				return true;
			}
		}
		return false;
	}

	private static String topLevel(String binaryName) {
		int nested = binaryName.indexOf('$');
		return nested < 0 ? binaryName : binaryName.substring(0, nested);
	}

	/** The top-level class names the reports written since the build started name. */
	private static Set<String> reportedClasses(Path reports, Instant buildStarted) {
		Set<String> names = new HashSet<>();
		if (!Files.isDirectory(reports)) {
			return names;
		}
		try (Stream<Path> files = Files.list(reports)) {
			for (Path report : (Iterable<Path>) files::iterator) {
				String file = report.getFileName().toString();
				if (!file.startsWith("TEST-") || !file.endsWith(".xml")
						|| Files.getLastModifiedTime(report).toInstant().isBefore(buildStarted)) {
					continue;
				}
				names.add(topLevel(file.substring("TEST-".length(), file.length() - ".xml".length())));
				Matcher matcher = REPORTED_CLASS.matcher(Files.readString(report));
				while (matcher.find()) {
					names.add(topLevel(matcher.group(1)));
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return names;
	}

	private static Map<String, ClassInfo> readClasses(Path root) {
		Map<String, ClassInfo> classes = new HashMap<>();
		try (Stream<Path> files = Files.walk(root)) {
			for (Path file : (Iterable<Path>) files::iterator) {
				String name = file.getFileName().toString();
				if (name.endsWith(".class") && !name.equals("module-info.class")
						&& !name.equals("package-info.class")) {
					try (InputStream in = Files.newInputStream(file)) {
						ClassInfo info = readClass(new DataInputStream(in));
						classes.put(info.name(), info);
					}
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return classes;
	}

	/**
	 * Reads a class file up to its interfaces (JVMS 4.1): the constant pool tells whether any annotation of interest
	 * is used (an annotation's type descriptor is a CONSTANT_Utf8 entry), then access flags, this, super, interfaces.
	 */
	private static ClassInfo readClass(DataInputStream in) throws IOException {
		if (in.readInt() != 0xCAFEBABE) {
			throw new IOException("not a class file");
		}
		in.readUnsignedShort(); // minor version
		in.readUnsignedShort(); // major version
		int count = in.readUnsignedShort();
		String[] utf8 = new String[count];
		int[] classNameIndex = new int[count];
		boolean declaresTests = false;
		for (int i = 1; i < count; i++) {
			int tag = in.readUnsignedByte();
			switch (tag) {
				case 1 -> { // Utf8
					utf8[i] = in.readUTF();
					declaresTests |= TEST_ANNOTATIONS.contains(utf8[i]);
				}
				case 7 -> classNameIndex[i] = in.readUnsignedShort(); // Class
				case 8, 16, 19, 20 -> in.readUnsignedShort(); // String, MethodType, Module, Package
				case 15 -> { // MethodHandle
					in.readUnsignedByte();
					in.readUnsignedShort();
				}
				case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt(); // Integer, Float, refs, NameAndType, dynamic
				case 5, 6 -> { // Long, Double: take two entries
					in.readLong();
					i++;
				}
				default -> throw new IOException("unknown constant pool tag " + tag);
			}
		}
		int access = in.readUnsignedShort();
		String name = className(utf8, classNameIndex, in.readUnsignedShort());
		String superName = className(utf8, classNameIndex, in.readUnsignedShort());
		int interfaceCount = in.readUnsignedShort();
		List<String> interfaces = new ArrayList<>(interfaceCount);
		for (int i = 0; i < interfaceCount; i++) {
			interfaces.add(className(utf8, classNameIndex, in.readUnsignedShort()));
		}
		return new ClassInfo(name, superName, interfaces, access, declaresTests);
	}

	private static String className(String[] utf8, int[] classNameIndex, int classIndex) {
		return classIndex == 0 ? null : utf8[classNameIndex[classIndex]].replace('/', '.');
	}

}
