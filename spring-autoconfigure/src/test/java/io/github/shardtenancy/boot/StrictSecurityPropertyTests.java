package io.github.shardtenancy.boot;

import java.util.UUID;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.boot.rerunapp.RerunApplication;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@code shard-tenancy.security.strict} in a Spring Boot application on embedded H2, whose default user {@code sa}
 * is an administrator: strict refuses the start naming the shard, the privilege and the property, and the failure
 * analyzer says how to fix it; the default starts (the privilege logged).
 */
@DisplayName("shard-tenancy.security.strict in a Spring Boot application")
class StrictSecurityPropertyTests {

	private static ConfigurableApplicationContext start(String... more) {
		String id = UUID.randomUUID().toString().substring(0, 8);
		return new SpringApplicationBuilder(RerunApplication.class)
			.properties("shard-tenancy.directory.url=jdbc:h2:mem:ss-directory-" + id + ";DB_CLOSE_DELAY=-1",
					"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:ss-shard-1-" + id + ";DB_CLOSE_DELAY=-1",
					"shard-tenancy.liquibase.shard-changelogs=db/rerun-shard.xml", "shard-tenancy.entities.check=off",
					"shard-tenancy.sync.interval=1h",
					"spring.main.web-application-type=none")
			.properties(more)
			.run();
	}

	@Test
	@DisplayName("strict: an H2 administrator as the shard's user refuses the start, explained by the failure analyzer")
	void strictRefusesAnAdministrator() {
		Throwable failure = catchThrowable(() -> start("shard-tenancy.security.strict=true").close());
		Throwable cause = failure;
		while (cause != null && !(cause instanceof ShardTenancyConfigurationException)) {
			cause = cause.getCause();
		}
		assertThat(cause).as("cause of %s", failure).isInstanceOf(ShardTenancyConfigurationException.class);
		assertThat(((ShardTenancyConfigurationException) cause).setting()).isEqualTo("shard-tenancy.security.strict");
		assertThat(cause.getMessage()).contains("shard 'shard-1'", "is an H2 administrator", "RUNSCRIPT");
		FailureAnalysis analysis = new ShardTenancyFailureAnalyzer().analyze(failure);
		assertThat(analysis.getAction()).contains("shard-tenancy.security.strict=false");
	}

	@Test
	@DisplayName("the default (not strict) starts")
	void defaultStarts() {
		assertThatNoException().isThrownBy(() -> start().close());
	}

}
