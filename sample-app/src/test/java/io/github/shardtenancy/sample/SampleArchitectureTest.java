package io.github.shardtenancy.sample;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample is what applications copy: its main code uses only the library's API and SPI, never its implementation
 * (https://www.archunit.org/userguide/html/000_Index.html).
 */
class SampleArchitectureTest {

	@Test
	@DisplayName("the sample's main code does not depend on the library's internal packages")
	void usesOnlyApiAndSpi() {
		JavaClasses sample = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.importPackages("io.github.shardtenancy.sample");
		assertThat(sample.size()).as("sample classes imported").isGreaterThan(10);
		noClasses().that()
			.resideInAPackage("io.github.shardtenancy.sample..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("io.github.shardtenancy.internal..")
			.because("applications use the API (ShardTenancy, TenantAdmin, TenantMover, ...) and the SPI only")
			.check(sample);
	}

}
