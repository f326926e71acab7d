package io.github.shardtenancy.boot;

import java.util.UUID;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import liquibase.util.LiquibaseUtil;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The start-up check of the Liquibase version: the supported 4.33 line passes, others fail with the remedy. */
@DisplayName("Liquibase version check")
class LiquibaseVersionCheckTests {

	private static String h2(String name) {
		return "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
	}

	@Test
	@DisplayName("reads the build's Liquibase (4.33.0) from the class path, and the application starts and migrates")
	void buildsLiquibasePasses() {
		assertThat(LiquibaseUtil.getBuildVersion()).isEqualTo("4.33.0");
		assertThatNoException().isThrownBy(LiquibaseVersionCheck::checkClassPath);
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
			.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
					"shard-tenancy.shards.shard-1.url=" + h2("shard-1"), "shard-tenancy.sync.interval=1h")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(ShardTenancyMigrator.class);
			});
	}

	@ParameterizedTest
	@ValueSource(strings = { "4.33.0", "4.33.1", "4.34.0" })
	@DisplayName("accepts the 4.33 line and later 4.x versions")
	void supported(String version) {
		assertThatNoException().isThrownBy(() -> LiquibaseVersionCheck.check(version));
	}

	@ParameterizedTest
	@ValueSource(strings = { "DEV", "", "unknown" })
	@DisplayName("lets a version it cannot read pass (a development build of Liquibase)")
	void unreadable(String version) {
		assertThatNoException().isThrownBy(() -> LiquibaseVersionCheck.check(version));
		assertThatNoException().isThrownBy(() -> LiquibaseVersionCheck.check(null));
	}

	@ParameterizedTest
	@ValueSource(strings = { "5.0.4", "5.0.0", "6.1.0", "4.32.0", "4.29.2", "3.10.3" })
	@DisplayName("refuses other versions, naming the version found, the supported range and the remedy")
	void unsupported(String version) {
		ShardTenancyConfigurationException ex = catchThrowableOfType(ShardTenancyConfigurationException.class,
				() -> LiquibaseVersionCheck.check(version));
		assertThat(ex).isNotNull();
		assertThat(ex.setting()).isEqualTo("liquibase.version");
		assertThat(ex.getMessage()).contains("Liquibase " + version + " is on the class path")
			.contains("4.33.0 up to, not including, 5.0.0")
			.contains("<liquibase.version>4.33.0</liquibase.version>");
		FailureAnalysis analysis = new ShardTenancyFailureAnalyzer()
			.analyze(new IllegalStateException("start-up failed", ex));
		assertThat(analysis).isNotNull();
		assertThat(analysis.getDescription()).contains("liquibase.version").contains("Liquibase " + version);
		assertThat(analysis.getAction()).contains("Set the build property liquibase.version to 4.33.0")
			.contains("shard-tenancy.liquibase.enabled=false")
			.doesNotContain("shard-tenancy.directory.url");
	}

	@Test
	@DisplayName("says why Liquibase 5 is refused: its licence")
	void liquibaseFiveNamesTheLicence() {
		ShardTenancyConfigurationException ex = catchThrowableOfType(ShardTenancyConfigurationException.class,
				() -> LiquibaseVersionCheck.check("5.0.4"));
		assertThat(ex.getMessage()).contains("not under an open-source licence");
	}

}
