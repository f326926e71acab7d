package io.github.shardtenancy.boot;

import java.sql.DriverManager;
import java.util.UUID;

import io.github.shardtenancy.boot.rerunapp.RerunApplication;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.diagnostics.FailureAnalysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A misspelt {@code shard-tenancy.*} key in a Spring Boot application on H2: the start is refused before any database
 * is opened, naming the key, its value and the nearest valid key.
 */
@DisplayName("Unknown shard-tenancy keys refuse the start, with the nearest valid key")
class UnknownSettingTests {

	@ParameterizedTest(name = "{0}")
	@CsvSource({ "shard-tenancy.directroy.maximum-pool-size, shard-tenancy.directory.maximum-pool-size",
			"shard-tenancy.shards.shard-1.ulr, shard-tenancy.shards.shard-1.url",
			"shard-tenancy.shards.shard-1.maximum-pool-sise, shard-tenancy.shards.shard-1.maximum-pool-size",
			"shard-tenancy.liquibase.shard-changelog, shard-tenancy.liquibase.shard-changelogs",
			"shard-tenancy.web.header-nme, shard-tenancy.web.header-name" })
	@DisplayName("a misspelt key")
	void misspelt(String key, String meant) {
		String id = UUID.randomUUID().toString().substring(0, 8);
		String directory = "jdbc:h2:mem:unknown-directory-" + id;
		Throwable failure = catchThrowable(() -> new SpringApplicationBuilder(RerunApplication.class)
			.properties("shard-tenancy.directory.url=" + directory + ";DB_CLOSE_DELAY=-1",
					"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:unknown-shard-1-" + id + ";DB_CLOSE_DELAY=-1",
					"shard-tenancy.liquibase.shard-changelogs=db/rerun-shard.xml", "shard-tenancy.sync.interval=1h",
					"spring.main.web-application-type=none", key + "=3")
			.run()
			.close());

		Throwable cause = failure;
		while (cause != null && !(cause instanceof UnboundConfigurationPropertiesException)) {
			cause = cause.getCause();
		}
		assertThat(cause).as("cause of %s", failure).isInstanceOf(UnboundConfigurationPropertiesException.class);
		FailureAnalysis analysis = new UnknownSettingFailureAnalyzer().analyze(failure);
		assertThat(analysis).isNotNull();
		assertThat(analysis.getDescription()).contains(key + " = '3'", "did you mean " + meant + "?");
		assertThat(analysis.getAction()).contains(key + " -> " + meant, "docs/configuration.md");
		// Refused before any database was opened: the directory's in-memory database was never created.
		assertThatThrownBy(() -> DriverManager.getConnection(directory + ";IFEXISTS=TRUE").close())
			.hasMessageContaining("not found");
	}

}
