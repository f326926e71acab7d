package io.github.shardtenancy.boot;

import java.util.UUID;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.boot.rerunapp.AuditRecord;
import io.github.shardtenancy.boot.rerunapp.RerunApplication;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@code shard-tenancy.entities.check} reaches the session factory Spring Boot builds: the application of
 * {@link RerunApplication} maps {@link AuditRecord}, a table of the shards without a tenant (an audit log); with
 * the default ({@code fail}) the start is refused naming it and the property, with {@code warn} it starts.
 */
@DisplayName("shard-tenancy.entities.check in a Spring Boot application")
class EntityCheckPropertyTests {

	private static ConfigurableApplicationContext start(String... more) {
		String id = UUID.randomUUID().toString().substring(0, 8);
		return new SpringApplicationBuilder(RerunApplication.class)
			.properties("shard-tenancy.directory.url=jdbc:h2:mem:ec-directory-" + id + ";DB_CLOSE_DELAY=-1",
					"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:ec-shard-1-" + id + ";DB_CLOSE_DELAY=-1",
					"shard-tenancy.liquibase.shard-changelogs=db/rerun-shard.xml", "shard-tenancy.sync.interval=1h",
					"spring.main.web-application-type=none")
			.properties(more)
			.run();
	}

	@Test
	@DisplayName("the default (fail): the start is refused, naming the entity without @TenantId and the property")
	void failRefusesTheStart() {
		Throwable failure = catchThrowable(() -> start().close());
		Throwable cause = failure;
		while (cause != null && !(cause instanceof ShardTenancyConfigurationException)) {
			cause = cause.getCause();
		}
		assertThat(cause).as("cause of %s", failure).isInstanceOf(ShardTenancyConfigurationException.class);
		assertThat(((ShardTenancyConfigurationException) cause).setting()).isEqualTo("shard-tenancy.entities.check");
		assertThat(cause.getMessage()).contains(AuditRecord.class.getName(), "table rerun_audit",
				"column audited_tenant is mapped without @TenantId");
	}

	@Test
	@DisplayName("warn starts")
	void warnStarts() {
		assertThatNoException().isThrownBy(() -> start("shard-tenancy.entities.check=warn").close());
	}

}
