package io.github.shardtenancy.boot;

import java.net.ServerSocket;
import java.util.UUID;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.boot.rerunapp.RerunApplication;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A shard or the directory that cannot be reached at start-up (an H2 TCP URL on a port nothing listens on): the start
 * fails naming the shard, its URL and the property, explained by the failure analyzer.
 */
@DisplayName("A database unreachable at start-up is named with its property")
class UnreachableAtStartTests {

	@Test
	@DisplayName("a shard that cannot be reached: shard id, URL and shard-tenancy.shards.<id>.url")
	void shard() throws Exception {
		String url = "jdbc:h2:tcp://localhost:" + freePort() + "/nowhere";
		String id = UUID.randomUUID().toString().substring(0, 8);
		Throwable failure = start("shard-tenancy.directory.url=jdbc:h2:mem:ua-directory-" + id + ";DB_CLOSE_DELAY=-1",
				"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:ua-shard-1-" + id + ";DB_CLOSE_DELAY=-1",
				"shard-tenancy.shards.shard-3.url=" + url);

		ShardTenancyConfigurationException cause = configurationCause(failure);
		assertThat(cause.setting()).isEqualTo("shard-tenancy.shards.shard-3.url");
		assertThat(cause.shardId()).isEqualTo("shard-3");
		assertThat(cause.getMessage()).contains("Shard 'shard-3' cannot be reached at start-up", url);
		FailureAnalysis analysis = new ShardTenancyFailureAnalyzer().analyze(failure);
		assertThat(analysis.getDescription()).contains("shard-tenancy.shards.shard-3.url", "shard-3");
	}

	@Test
	@DisplayName("a directory that cannot be reached: its URL and shard-tenancy.directory.url")
	void directory() throws Exception {
		String url = "jdbc:h2:tcp://localhost:" + freePort() + "/nowhere";
		String id = UUID.randomUUID().toString().substring(0, 8);
		Throwable failure = start("shard-tenancy.directory.url=" + url,
				"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:ua-shard-1-" + id + ";DB_CLOSE_DELAY=-1");

		ShardTenancyConfigurationException cause = configurationCause(failure);
		assertThat(cause.setting()).isEqualTo("shard-tenancy.directory.url");
		assertThat(cause.getMessage()).contains("The directory database cannot be reached at start-up", url);
	}

	private static Throwable start(String... properties) {
		return catchThrowable(() -> new SpringApplicationBuilder(RerunApplication.class).properties(properties)
			.properties("shard-tenancy.liquibase.shard-changelogs=db/rerun-shard.xml", "shard-tenancy.sync.interval=1h",
					"spring.main.web-application-type=none")
			.run()
			.close());
	}

	private static ShardTenancyConfigurationException configurationCause(Throwable failure) {
		Throwable cause = failure;
		while (cause != null && !(cause instanceof ShardTenancyConfigurationException)) {
			cause = cause.getCause();
		}
		assertThat(cause).as("cause of %s", failure).isInstanceOf(ShardTenancyConfigurationException.class);
		return (ShardTenancyConfigurationException) cause;
	}

	private static int freePort() throws Exception {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
