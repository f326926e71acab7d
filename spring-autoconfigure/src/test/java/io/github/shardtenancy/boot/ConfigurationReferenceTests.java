package io.github.shardtenancy.boot;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.math.BigDecimal;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.jayway.jsonpath.Configuration;
import com.jayway.jsonpath.JsonPath;
import com.jayway.jsonpath.Option;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps {@code docs/configuration.md} and the bound {@code shard-tenancy.*} properties in step.
 *
 * <p>The properties are read from the configuration metadata that Spring Boot's annotation processor writes to
 * {@code META-INF/spring-configuration-metadata.json} when this module compiles (declared in the module's
 * {@code annotationProcessorPaths}), so the check does not depend on how the properties classes are laid out. The
 * processor does not describe the values of a map (such as {@code shard-tenancy.shards.<shard-id>.*}); their
 * properties are read from the value type the metadata names, as Spring Boot's binder binds them: every property with
 * a getter and a setter, in dashed form, with the default a new instance holds.
 *
 * <p>A nested group whose type belongs to another library (HikariCP's {@code HikariConfig} under {@code hikari}) is
 * bound setter by setter like Boot's {@code spring.datasource.hikari.*} and documented by that library: it is one row,
 * {@code <group>.*}, whose type is the group's type.
 *
 * <p>The reference table is every table row of {@code docs/configuration.md} whose first cell is a
 * {@code shard-tenancy.} property; a map key is written as a placeholder in angle brackets.
 *
 * @see <a href="https://docs.spring.io/spring-boot/specification/configuration-metadata/annotation-processor.html">
 * Generating your own metadata by using the annotation processor</a>
 */
class ConfigurationReferenceTests {

	private static final String PREFIX = "shard-tenancy.";

	private static final String METADATA = "META-INF/spring-configuration-metadata.json";

	private static final Pattern MAP_TYPE = Pattern.compile("java\\.util\\.Map<java\\.lang\\.String,\\s*([\\w.$]+)>");

	private static final Pattern PLACEHOLDER = Pattern.compile("<[^>]+>");

	private static Map<String, BoundProperty> bound;

	private static Map<String, DocumentedProperty> documented;

	private static List<String> duplicateRows;

	@BeforeAll
	static void read() throws IOException {
		bound = boundProperties();
		duplicateRows = new ArrayList<>();
		documented = documentedProperties(duplicateRows);
	}

	@Test
	void metadataWasGenerated() {
		assertThat(bound).as("shard-tenancy properties in %s: does the configuration processor run?", METADATA)
			.containsKeys("shard-tenancy.enabled", "shard-tenancy.directory.url", "shard-tenancy.shards.*.url");
	}

	@Test
	void everyBoundPropertyIsDocumented() {
		assertThat(without(bound.keySet(), documented.keySet()))
			.as("properties bound from shard-tenancy.* but missing from docs/configuration.md")
			.isEmpty();
	}

	@Test
	void everyDocumentedPropertyIsBound() {
		assertThat(without(documented.keySet(), bound.keySet()))
			.as("properties listed in docs/configuration.md that are not bound from shard-tenancy.*")
			.isEmpty();
	}

	@Test
	void everyPropertyIsDocumentedOnce() {
		assertThat(duplicateRows).as("rows of docs/configuration.md listing a property again").isEmpty();
	}

	@Test
	void documentedTypesAreTheBoundTypes() {
		assertThat(mismatches((property, row) -> row.type().equals(simpleTypeName(property.type())) ? null
				: "documented " + row.type() + ", bound " + simpleTypeName(property.type())))
			.as("types in docs/configuration.md")
			.isEmpty();
	}

	@Test
	void documentedDefaultsAreTheBoundDefaults() {
		assertThat(mismatches((property, row) -> (property.defaultValue() == null
				|| sameValue(property.type(), property.defaultValue(), row.defaultValue())) ? null
						: "documented " + row.defaultValue() + ", bound " + property.defaultValue()))
			.as("defaults in docs/configuration.md")
			.isEmpty();
	}

	/**
	 * Spring Boot's rules for property descriptions: a sentence that starts with a capital letter, not with an
	 * article, and ends with a period; a boolean's starts with "Whether" or "Enable", a collection's with
	 * "Comma-separated list".
	 */
	@Test
	void descriptionsFollowSpringBootsWordingRules() {
		List<String> wrong = new ArrayList<>();
		documented.forEach((name, row) -> {
			String description = row.description();
			String type = (bound.containsKey(name)) ? bound.get(name).type() : "";
			if (description.isEmpty() || !Character.isUpperCase(description.charAt(0))) {
				wrong.add(name + ": does not start with a capital letter");
			}
			if (description.startsWith("The ") || description.startsWith("A ") || description.startsWith("An ")) {
				wrong.add(name + ": starts with an article");
			}
			if (!description.endsWith(".")) {
				wrong.add(name + ": does not end with a period");
			}
			if (type.equals(Boolean.class.getName())
					&& !(description.startsWith("Whether") || description.startsWith("Enable"))) {
				wrong.add(name + ": a boolean's description starts with 'Whether' or 'Enable'");
			}
			if (type.startsWith("java.util.List<") && !description.startsWith("Comma-separated list")) {
				wrong.add(name + ": a list's description starts with 'Comma-separated list'");
			}
		});
		assertThat(wrong).as("descriptions in docs/configuration.md").isEmpty();
	}

	/**
	 * @param check what is wrong with a documented property, or {@code null} when nothing is
	 * @return "name: what is wrong" for every bound property that is documented and fails the check
	 */
	private static List<String> mismatches(BiFunction<BoundProperty, DocumentedProperty, String> check) {
		List<String> wrong = new ArrayList<>();
		bound.forEach((name, property) -> {
			DocumentedProperty row = documented.get(name);
			String problem = (row != null) ? check.apply(property, row) : null;
			if (problem != null) {
				wrong.add(name + ": " + problem);
			}
		});
		return wrong;
	}

	/** @return the names in {@code names} that are not in {@code others}, sorted */
	private static Set<String> without(Set<String> names, Set<String> others) {
		Set<String> rest = new TreeSet<>(names);
		rest.removeAll(others);
		return rest;
	}

	/** @return the properties under {@code shard-tenancy.}, by name with every map key written {@code *} */
	private static Map<String, BoundProperty> boundProperties() throws IOException {
		Map<String, BoundProperty> properties = new LinkedHashMap<>();
		List<URL> files = Collections.list(ConfigurationReferenceTests.class.getClassLoader().getResources(METADATA));
		for (URL file : files) {
			List<Map<String, Object>> entries;
			List<Map<String, Object>> groups;
			try (InputStream in = file.openStream()) {
				// A metadata file may leave out any of its sections (other jars' have no groups): read those as empty.
				com.jayway.jsonpath.DocumentContext metadata = JsonPath
					.using(Configuration.defaultConfiguration().addOptions(Option.SUPPRESS_EXCEPTIONS))
					.parse(in);
				entries = metadata.read("$.properties[*]");
				groups = metadata.read("$.groups[*]");
			}
			Map<String, String> foreignGroups = new LinkedHashMap<>();
			for (Map<String, Object> group : groups) {
				String name = (String) group.get("name");
				String type = (String) group.get("type");
				if (name.startsWith(PREFIX) && type != null && isForeign(type)) {
					foreignGroups.put(name + ".", type);
				}
			}
			for (Map<String, Object> entry : entries) {
				String name = (String) entry.get("name");
				if (!name.startsWith(PREFIX)) {
					continue;
				}
				String foreignGroup = foreignGroups.keySet().stream().filter(name::startsWith).findFirst().orElse(null);
				if (foreignGroup != null) {
					properties.put(foreignGroup + "*", new BoundProperty(foreignGroups.get(foreignGroup), null));
					continue;
				}
				String type = (String) entry.get("type");
				Matcher map = (type != null) ? MAP_TYPE.matcher(type) : null;
				if (map != null && map.matches() && !map.group(1).startsWith("java.")) {
					addMapValueProperties(properties, name + ".*", map.group(1));
				}
				else {
					properties.put(name, new BoundProperty(type, entry.get("defaultValue")));
				}
			}
		}
		return properties;
	}

	/** The properties of a map's value type, as the binder binds a JavaBean: getter and setter, dashed names. */
	private static void addMapValueProperties(Map<String, BoundProperty> properties, String prefix, String typeName) {
		Class<?> type;
		try {
			type = ClassUtils.forName(typeName, ConfigurationReferenceTests.class.getClassLoader());
		}
		catch (ClassNotFoundException ex) {
			throw new IllegalStateException("Map value type " + typeName + " of " + prefix + " not found", ex);
		}
		Object instance = newInstance(type);
		for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
			if (descriptor.getReadMethod() != null && descriptor.getWriteMethod() == null
					&& isForeign(descriptor.getPropertyType().getName())) {
				// A nested group of another library's type, bound onto the instance the getter returns.
				properties.put(prefix + "." + DataObjectPropertyName.toDashedForm(descriptor.getName()) + ".*",
						new BoundProperty(descriptor.getPropertyType().getName(), null));
				continue;
			}
			if (descriptor.getReadMethod() == null || descriptor.getWriteMethod() == null) {
				continue;
			}
			Object defaultValue;
			try {
				defaultValue = descriptor.getReadMethod().invoke(instance);
			}
			catch (IllegalAccessException | InvocationTargetException ex) {
				throw new IllegalStateException("Cannot read " + descriptor.getName() + " of " + typeName, ex);
			}
			String propertyType = ClassUtils.resolvePrimitiveIfNecessary(descriptor.getPropertyType()).getName();
			properties.put(prefix + "." + DataObjectPropertyName.toDashedForm(descriptor.getName()),
					new BoundProperty(propertyType, defaultValue));
		}
	}

	/** @return whether a group's type belongs to another library (neither this library's nor the JDK's) */
	private static boolean isForeign(String type) {
		return type.contains(".") && !type.startsWith("io.github.shardtenancy.") && !type.startsWith("java.");
	}

	private static Object newInstance(Class<?> type) {
		try {
			Constructor<?> constructor = type.getDeclaredConstructor();
			constructor.setAccessible(true);
			return constructor.newInstance();
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Cannot create " + type.getName() + " to read its defaults", ex);
		}
	}

	/** @return the rows of the reference table, by property with every map key written {@code *} */
	private static Map<String, DocumentedProperty> documentedProperties(List<String> duplicates) {
		Path reference = findReference();
		List<String> lines;
		try {
			lines = Files.readAllLines(reference);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Map<String, DocumentedProperty> rows = new LinkedHashMap<>();
		for (String line : lines) {
			if (!line.startsWith("| `" + PREFIX)) {
				continue;
			}
			String[] cells = line.substring(1, line.lastIndexOf('|')).split("\\|", -1);
			assertThat(cells).as("cells of the row %s (property, type, default, description)", line).hasSize(4);
			String name = PLACEHOLDER.matcher(unquote(cells[0])).replaceAll("*");
			DocumentedProperty row = new DocumentedProperty(unquote(cells[1]), unquote(cells[2]), cells[3].strip());
			if (rows.putIfAbsent(name, row) != null) {
				duplicates.add(name);
			}
		}
		return rows;
	}

	private static Path findReference() {
		Path directory = Path.of("").toAbsolutePath();
		while (directory != null) {
			Path candidate = directory.resolve("docs").resolve("configuration.md");
			if (Files.isRegularFile(candidate)) {
				return candidate;
			}
			directory = directory.getParent();
		}
		throw new IllegalStateException("docs/configuration.md not found above " + Path.of("").toAbsolutePath());
	}

	private static String unquote(String cell) {
		return cell.strip().replace("`", "");
	}

	/**
	 * @return {@code java.lang.Boolean} as {@code Boolean}, {@code java.util.List<java.lang.String>} as
	 * {@code List<String>}, a nested class {@code Outer$Inner} as {@code Inner}
	 */
	static String simpleTypeName(String type) {
		return (type != null) ? type.replaceAll("\\b[a-z][a-z0-9_]*\\.", "").replaceAll("\\w+\\$", "")
			.replace(" ", "") : "";
	}

	private static boolean sameValue(String type, Object bound, String documented) {
		String value = String.valueOf(bound);
		try {
			if (Duration.class.getName().equals(type)) {
				Duration expected = (bound instanceof Duration duration) ? duration
						: DurationStyle.detectAndParse(value);
				return expected.equals(DurationStyle.detectAndParse(documented));
			}
			if (bound instanceof Enum<?> constant) {
				return constant.name().toLowerCase(Locale.ROOT).replace('_', '-').equals(documented);
			}
			if (bound instanceof Number) {
				return new BigDecimal(value).compareTo(new BigDecimal(documented)) == 0;
			}
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
		return Objects.equals(value, documented);
	}

	/**
	 * @param type the bound type's name, as the metadata gives it
	 * @param defaultValue the default, or {@code null} when none is known
	 */
	private record BoundProperty(String type, Object defaultValue) {
	}

	private record DocumentedProperty(String type, String defaultValue, String description) {
	}

}
