package io.github.shardtenancy.boot;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Member;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.xml.parsers.DocumentBuilderFactory;

import io.github.shardtenancy.ShardSafeId;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import org.h2.api.Trigger;
import org.hibernate.annotations.IdGeneratorType;
import org.hibernate.generator.GeneratorCreationContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.type.filter.AssignableTypeFilter;
import org.springframework.util.ClassUtils;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import io.github.shardtenancy.boot.actuate.ShardTenancyEndpoint;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime hints cover what the library needs in a native image, checked against the real lists rather than a
 * copy of the hints: every file in the library modules' {@code src/main/resources}, every file the changelogs include,
 * every provider of the library's service files, every H2 function a changelog installs by class name and every H2
 * trigger class. A resource, provider, function or trigger added without a hint fails here.
 */
class ShardTenancyRuntimeHintsTests {

	/** Modules that are not part of an application's runtime: the sample, the benchmarks, test-only helpers. */
	private static final Set<String> NOT_LIBRARY = Set.of("sample-app", "benchmarks", "test-fixtures", "src-it");

	/** Read by Spring and Boot at build time (AOT) or by IDEs, not by the library at run time. */
	private static final Pattern BUILD_TIME = Pattern
		.compile("META-INF/spring\\.factories|META-INF/spring/.*|META-INF/additional-spring-configuration-metadata\\.json");

	private static final Pattern H2_ALIAS = Pattern.compile("CREATE\\s+ALIAS\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?\\w+\\s+FOR\\s+'([\\w.$]+)\\.(\\w+)'",
			Pattern.CASE_INSENSITIVE);

	private static RuntimeHints hints;

	@BeforeAll
	static void registerHints() {
		hints = new RuntimeHints();
		List<RuntimeHintsRegistrar> registrars = SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class);
		assertThat(registrars).as("registrars in META-INF/spring/aot.factories")
			.anyMatch(ShardTenancyRuntimeHints.class::isInstance);
		registrars.stream()
			.filter(ShardTenancyRuntimeHints.class::isInstance)
			.forEach((registrar) -> registrar.registerHints(hints, ClassUtils.getDefaultClassLoader()));
	}

	/**
	 * A file under a library module's {@code src/main/resources}.
	 * @param location its class path location (two modules may have the same one, as service files)
	 * @param file the file
	 */
	private record Resource(String location, Path file) {
	}

	/** Every file under src/main/resources of every library module. */
	private static List<Resource> libraryResources() throws IOException {
		Path root = Path.of("").toAbsolutePath().getParent();
		List<Resource> out = new ArrayList<>();
		try (Stream<Path> modules = Files.list(root)) {
			for (Path module : modules.filter((m) -> Files.isRegularFile(m.resolve("pom.xml")))
				.filter((m) -> !NOT_LIBRARY.contains(m.getFileName().toString()))
				.toList()) {
				Path resources = module.resolve("src/main/resources");
				if (Files.isDirectory(resources)) {
					try (Stream<Path> files = Files.walk(resources)) {
						files.filter(Files::isRegularFile)
							.forEach((file) -> out.add(new Resource(
									resources.relativize(file).toString().replace('\\', '/'), file)));
					}
				}
			}
		}
		return out;
	}

	@Test
	void everyResourceOfTheLibraryHasAHint() throws IOException {
		List<String> resources = libraryResources().stream().map(Resource::location).toList();
		assertThat(resources).as("library resources found from %s", Path.of("").toAbsolutePath())
			.contains(ShardTenancyMigrations.SHARD_CHANGELOG, "io/github/shardtenancy/h2/bind.sql",
					"io/github/shardtenancy/postgresql/begin.sql",
					"META-INF/services/io.github.shardtenancy.spi.FenceDialect");
		List<String> runtime = resources.stream().filter((name) -> !BUILD_TIME.matcher(name).matches()).toList();
		assertThat(runtime).allSatisfy((name) -> assertThat(RuntimeHintsPredicates.resource().forResource(name))
			.as("a resource hint for %s", name)
			.accepts(hints));
	}

	@Test
	void everyFileTheChangelogsIncludeExistsAndHasAHint() throws Exception {
		Set<String> seen = new LinkedHashSet<>();
		Deque<String> pending = new ArrayDeque<>(
				List.of(ShardTenancyMigrations.DIRECTORY_CHANGELOG, ShardTenancyMigrations.SHARD_CHANGELOG));
		while (!pending.isEmpty()) {
			String changelog = pending.pop();
			if (!seen.add(changelog)) {
				continue;
			}
			ClassPathResource resource = new ClassPathResource(changelog);
			assertThat(resource.exists()).as("%s on the class path", changelog).isTrue();
			assertThat(RuntimeHintsPredicates.resource().forResource(changelog)).as("a resource hint for %s", changelog)
				.accepts(hints);
			if (changelog.endsWith(".xml")) {
				pending.addAll(references(changelog, resource));
			}
		}
		assertThat(seen).as("the changelogs and what they include")
			.contains("db/shard-tenancy/directory-moves.xml", "db/shard-tenancy/pg/shard_fence_begin.sql");
	}

	/** The files an XML changelog includes ({@code include file}, {@code sqlFile path}), as class path locations. */
	private static List<String> references(String changelog, ClassPathResource resource) throws Exception {
		DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
		factory.setNamespaceAware(true);
		Document document;
		try (InputStream in = resource.getInputStream()) {
			document = factory.newDocumentBuilder().parse(in);
		}
		String base = changelog.substring(0, changelog.lastIndexOf('/') + 1);
		List<String> out = new ArrayList<>();
		for (String[] reference : List.of(new String[] { "include", "file" }, new String[] { "sqlFile", "path" })) {
			NodeList nodes = document.getElementsByTagNameNS("*", reference[0]);
			for (int i = 0; i < nodes.getLength(); i++) {
				Element element = (Element) nodes.item(i);
				String path = element.getAttribute(reference[1]);
				out.add("true".equals(element.getAttribute("relativeToChangelogFile")) ? base + path : path);
			}
		}
		return out;
	}

	@Test
	void everyServiceProviderOfTheLibraryHasAHint() throws Exception {
		List<Resource> serviceFiles = libraryResources().stream()
			.filter((resource) -> resource.location().startsWith("META-INF/services/"))
			.toList();
		assertThat(serviceFiles).hasSizeGreaterThanOrEqualTo(6);
		int providers = 0;
		for (Resource serviceFile : serviceFiles) {
			String file = serviceFile.location();
			assertThat(ShardTenancyRuntimeHints.SERVICES).as("the service interfaces of the hints")
				.contains(file.substring("META-INF/services/".length()));
			for (String line : Files.readAllLines(serviceFile.file(), StandardCharsets.UTF_8)) {
				String name = line.replaceFirst("#.*", "").strip();
				if (name.isEmpty()) {
					continue;
				}
				Class<?> provider = Class.forName(name);
				assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(provider.getConstructor()))
					.as("a hint to construct the provider %s of %s", name, file)
					.accepts(hints);
				providers++;
			}
		}
		assertThat(providers).as("providers in the library's service files").isGreaterThanOrEqualTo(7);
	}

	@Test
	void everyH2FunctionAChangelogInstallsHasAHint() throws Exception {
		int functions = 0;
		for (Resource resource : libraryResources()) {
			String name = resource.location();
			if (!name.endsWith(".xml") && !name.endsWith(".sql")) {
				continue;
			}
			Matcher alias = H2_ALIAS.matcher(Files.readString(resource.file(), StandardCharsets.UTF_8));
			while (alias.find()) {
				Class<?> type = Class.forName(alias.group(1));
				assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(type, alias.group(2)))
					.as("a hint to call %s.%s (installed by %s)", alias.group(1), alias.group(2), name)
					.accepts(hints);
				functions++;
			}
		}
		assertThat(functions).as("H2 functions installed by the changelogs").isGreaterThanOrEqualTo(3);
	}

	@Test
	void everyH2TriggerHasAHint() throws Exception {
		ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false);
		scanner.addIncludeFilter(new AssignableTypeFilter(Trigger.class));
		Set<BeanDefinition> triggers = scanner.findCandidateComponents("io.github.shardtenancy");
		assertThat(triggers).as("H2 triggers of the library").hasSizeGreaterThanOrEqualTo(2);
		for (BeanDefinition trigger : triggers) {
			Class<?> type = Class.forName(trigger.getBeanClassName());
			assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(type.getDeclaredConstructor()))
				.as("a hint to construct the H2 trigger %s", type.getName())
				.accepts(hints);
		}
	}

	@Test
	void theShardSafeIdGeneratorHasAHint() throws Exception {
		Class<?> generator = ShardSafeId.class.getAnnotation(IdGeneratorType.class).value();
		assertThat(generator.getName()).isEqualTo(ShardTenancyRuntimeHints.ID_GENERATOR);
		assertThat(RuntimeHintsPredicates.reflection()
			.onConstructorInvocation(generator.getConstructor(ShardSafeId.class, Member.class,
					GeneratorCreationContext.class)))
			.accepts(hints);
	}

	@Test
	void actuatorRegistersTheEndpointsResponseTypes() {
		RuntimeHints endpointHints = new RuntimeHints();
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(endpointHints, ShardTenancyEndpoint.class);
		for (Class<?> type : List.of(ShardTenancyEndpoint.ShardTenancyDescriptor.class,
				ShardTenancyEndpoint.ShardDescriptor.class, ShardTenancyEndpoint.TenantDescriptor.class,
				ShardTenancyEndpoint.MoveDescriptor.class)) {
			assertThat(RuntimeHintsPredicates.reflection().onType(type)).as("a hint for %s", type.getName())
				.accepts(endpointHints);
		}
		RuntimeHints instancesHints = new RuntimeHints();
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(instancesHints,
				io.github.shardtenancy.boot.actuate.ShardTenancyInstancesEndpoint.class);
		for (Class<?> type : List.of(io.github.shardtenancy.boot.actuate.ShardTenancyInstancesEndpoint.InstancesDescriptor.class,
				io.github.shardtenancy.InstanceRecord.class)) {
			assertThat(RuntimeHintsPredicates.reflection().onType(type)).as("a hint for %s", type.getName())
				.accepts(instancesHints);
		}
	}

}
