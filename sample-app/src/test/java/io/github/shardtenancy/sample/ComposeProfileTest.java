package io.github.shardtenancy.sample;

import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantRouter;
import io.github.shardtenancy.boot.ShardTenancyConnectionDetails;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.ActiveProfiles;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample under the {@code compose} profile: Spring Boot's Docker Compose support starts {@code compose.yaml} and the
 * directory and the three shards are its PostgreSQL services, not the H2 databases of {@code application.yml}. Needs
 * Docker: skipped (reported as skipped) where {@code docker info} does not succeed.
 */
@EnabledIf("dockerRuns")
@ActiveProfiles("compose")
@SpringBootTest(properties = { "spring.docker.compose.skip.in-tests=false", "sample.seed.tenants=3" })
@DisplayName("compose profile (Docker)")
class ComposeProfileTest {

	@Autowired
	ShardTenancyConnectionDetails connections;

	@Autowired
	ShardTopology topology;

	@Autowired
	TenantAdmin admin;

	@Autowired
	TenantRouter router;

	static boolean dockerRuns() {
		try {
			Process docker = new ProcessBuilder("docker", "info").redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
			return docker.waitFor(20, TimeUnit.SECONDS) && docker.exitValue() == 0;
		}
		catch (Exception ex) {
			return false;
		}
	}

	@Test
	@DisplayName("the directory and every shard are the compose services' PostgreSQL databases, and tenants route")
	void runsOnTheComposeServices() {
		assertThat(this.connections.getDirectory().jdbcUrl()).startsWith("jdbc:postgresql://")
			.endsWith("/directory");
		assertThat(this.topology.shardIds()).containsExactlyInAnyOrder("shard-1", "shard-2", "shard-3");
		for (String shardId : this.topology.shardIds()) {
			assertThat(((HikariDataSource) this.topology.dataSource(shardId)).getJdbcUrl()).as(shardId)
				.startsWith("jdbc:postgresql://");
		}
		this.admin.create("compose-tenant", "shard-3");
		assertThat(this.router.route("compose-tenant").shardId()).isEqualTo("shard-3");
	}

}
