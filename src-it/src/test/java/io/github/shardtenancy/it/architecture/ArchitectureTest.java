package io.github.shardtenancy.it.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import io.github.shardtenancy.ShardSafeId;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyBuilder;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.internal.ids.ShardSafeIdGenerator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.equivalentTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The package rules of every module's main code (https://www.archunit.org/userguide/html/000_Index.html):
 * <ul>
 * <li>the core's layers: the API (root package) depends on nothing else of the library; {@code spi} and
 * {@code retry} on the API only; {@code internal} on all three; only the entry point {@code ShardTenancy} (which
 * wires the implementation) and {@code TenantContext} (which asks the connection guard whether a connection of another
 * tenant is open) reach into {@code internal};</li>
 * <li>no package cycles among the core's packages and among the areas of {@code internal};</li>
 * <li>the other modules' main code imports only the core's API, {@code spi} and {@code retry}, never
 * {@code internal};</li>
 * <li>no Spring in the core; no database driver classes and no database-specific SQL in the core.</li>
 * </ul>
 */
class ArchitectureTest {

	private static final String BASE = "io.github.shardtenancy";

	private static final String[] CORE_AREAS = { BASE + ".internal..", BASE + ".spi..", BASE + ".retry.." };

	private static JavaClasses all;

	private static JavaClasses core;

	@BeforeAll
	static void importClasses() {
		all = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.importPackages(BASE);
		core = all.that(resideInAPackage(BASE)
			.or(resideInAnyPackage(CORE_AREAS)));
		assertThat(core.size()).as("core classes imported").isGreaterThan(50);
		assertThat(all.size()).as("all classes imported").isGreaterThan(core.size());
	}

	@Test
	@DisplayName("the API (root package) never depends on internal; only the builder, the entry point and the tenant "
			+ "context use spi")
	void apiDependsOnNothingElse() {
		noClasses().that().resideInAPackage(BASE).and().doNotBelongToAnyOf(ShardSafeId.class)
			.should().dependOnClassesThat().resideInAPackage(BASE + ".internal..")
			.because("applications see the API without the implementation behind it; the builder finds the "
					+ "implementation with ServiceLoader")
			.check(core);
		// Hibernate's @IdGeneratorType must name the generator class: the annotation's only way into internal.
		noClasses().that().belongToAnyOf(ShardSafeId.class)
			.should().dependOnClassesThat(resideInAPackage(BASE + ".internal..")
				.and(DescribedPredicate.not(equivalentTo(ShardSafeIdGenerator.class))))
			.check(core);
		noClasses().that().resideInAPackage(BASE)
			.and().doNotBelongToAnyOf(ShardTenancy.class, ShardTenancyBuilder.class, TenantContext.class)
			.should().dependOnClassesThat().resideInAnyPackage(BASE + ".spi..", BASE + ".retry..")
			.check(core);
		noClasses().that().belongToAnyOf(TenantContext.class, ShardTenancy.class, ShardTenancyBuilder.class)
			.should().dependOnClassesThat().resideInAPackage(BASE + ".retry..")
			.check(core);
	}

	@Test
	@DisplayName("spi and retry depend on the API only, never on internal")
	void spiAndRetryDependOnTheApiOnly() {
		noClasses().that().resideInAnyPackage(BASE + ".spi..", BASE + ".retry..")
			.should().dependOnClassesThat().resideInAPackage(BASE + ".internal..")
			.check(core);
		noClasses().that().resideInAPackage(BASE + ".spi..")
			.should().dependOnClassesThat().resideInAPackage(BASE + ".retry..")
			.check(core);
	}

	@Test
	@DisplayName("no package cycles: API and SPI never reach internal, the areas of internal form no cycle, and only "
			+ "the wiring (the internal package itself) depends on them all")
	void noCycles() {
		slices().matching(BASE + ".(*)..").should().beFreeOfCycles().check(core);
		slices().matching(BASE + ".internal.(*)..").should().beFreeOfCycles().check(core);
		noClasses().that().resideInAPackage(BASE + ".internal..").and().resideOutsideOfPackage(BASE + ".internal")
			.should().dependOnClassesThat().resideInAPackage(BASE + ".internal")
			.because("the wiring depends on every area; an area that depended on it would close a cycle")
			.check(core);
	}

	@Test
	@DisplayName("the other modules' main code imports only the core's API, spi and retry")
	void otherModulesUseOnlyApiAndSpi() {
		noClasses().that().resideOutsideOfPackages(CORE_AREAS).and().resideOutsideOfPackage(BASE)
			// test fixtures are test code, shipped only to the modules' tests
			.and().resideOutsideOfPackage(BASE + ".testing..")
			.should().dependOnClassesThat().resideInAPackage(BASE + ".internal..")
			.because("the core's implementation may change in any release; ShardTenancy's builder wires it")
			.check(all);
	}

	@Test
	@DisplayName("no Spring and no database driver in the core")
	void noSpringNorDriverInCore() {
		noClasses().should().dependOnClassesThat()
			.resideInAnyPackage("org.springframework..", "org.postgresql..", "org.h2..", "liquibase..")
			.check(core);
	}

	/** SQL only one database understands; the dialect modules own it. */
	private static final Pattern DATABASE_SPECIFIC_SQL = Pattern.compile(
			"ON CONFLICT|pg_[a-z_]+\\(|plpgsql|LISTEN |NOTIFY |COPY .* FROM STDIN|CREATE ALIAS|CREATE TRIGGER|"
					+ "set_config\\(|current_setting\\(|MERGE INTO .* KEY",
			Pattern.CASE_INSENSITIVE);

	@Test
	@DisplayName("no database-specific SQL in the core's sources or resources")
	void noDatabaseSpecificSqlInCore() throws IOException {
		Path core = RepositoryRoot.find().resolve("hibernate-shard-tenancy/src/main");
		assertThat(core).isDirectory();
		List<String> found;
		try (Stream<Path> files = Files.walk(core)) {
			found = files.filter(Files::isRegularFile).flatMap(ArchitectureTest::matches).toList();
		}
		assertThat(found).as("database-specific SQL in the core (move it to its dialect module)").isEmpty();
	}

	private static Stream<String> matches(Path file) {
		try {
			List<String> lines = Files.readAllLines(file);
			return java.util.stream.IntStream.range(0, lines.size())
				.filter((i) -> DATABASE_SPECIFIC_SQL.matcher(lines.get(i)).find())
				.mapToObj((i) -> file.getFileName() + ":" + (i + 1) + ": " + lines.get(i).strip());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
