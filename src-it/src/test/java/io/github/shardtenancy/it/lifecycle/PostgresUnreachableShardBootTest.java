package io.github.shardtenancy.it.lifecycle;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.ShardUnavailableException;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.it.security.notenant.NoTenantApplication;
import io.github.shardtenancy.it.security.notenant.PetTypes;
import io.github.shardtenancy.it.security.notenant.Pets;
import io.github.shardtenancy.testing.pg.EmbeddedPostgresServer;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import io.github.shardtenancy.testing.reference.Pet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * {@code shard-tenancy.unreachable-shard-policy=start-without} on PostgreSQL, through Spring Data JPA: shard-2 is an
 * embedded PostgreSQL server that is stopped when the application starts. The application serves shard-1's tenant,
 * refuses shard-2's with {@link ShardUnavailableException}, and once the server runs again serves it, without a
 * restart.
 */
@DisplayName("PostgreSQL with Spring Boot: a shard down at start-up, started without and added when it answers")
class PostgresUnreachableShardBootTest {

	@Test
	@DisplayName("start-without: shard-2's tenant is refused while its server is down, then served")
	void startsWithoutAndAddsItWhenItAnswers() throws Exception {
		Path data = Files.createTempDirectory("unreachable-shard-2");
		EmbeddedPostgresServer shard2 = new EmbeddedPostgresServer("unreachable-shard-2", data, freePort());
		try (ScratchPostgres postgres = ScratchPostgres.start("unreachable-boot")) {
			for (String database : List.of("directory", "shard1")) {
				postgres.createDatabase(database, 1).close();
			}
			List<String> properties = new ArrayList<>(List.of(
					"shard-tenancy.directory.url=" + url(postgres, "directory"),
					"shard-tenancy.directory.username=" + postgres.server().user(),
					"shard-tenancy.directory.password=" + postgres.server().password(),
					"shard-tenancy.shards.shard-1.url=" + url(postgres, "shard1"),
					"shard-tenancy.shards.shard-1.username=" + postgres.server().user(),
					"shard-tenancy.shards.shard-1.password=" + postgres.server().password(),
					"shard-tenancy.shards.shard-2.url=" + shard2.jdbcUrl(),
					"shard-tenancy.shards.shard-2.username=" + shard2.user(),
					"shard-tenancy.shards.shard-2.password=" + shard2.password(),
					"shard-tenancy.shards.shard-2.connection-timeout=2s",
					"shard-tenancy.liquibase.shard-changelogs=db/testing/pets.xml", "shard-tenancy.sync.interval=1h",
					"shard-tenancy.actor=unreachable-boot", "spring.liquibase.enabled=false",
					"spring.jmx.enabled=false"));
			// An earlier run, with both shards up, placed globex on shard-2 with a pet.
			shard2.start();
			try (ConfigurableApplicationContext earlier = start(properties)) {
				NoTenantApplication.seed(earlier);
				earlier.getBean(TenantAdmin.class).create("initech", "shard-2");
				save(earlier, "initech", "Milton");
			}
			finally {
				shard2.stop();
			}
			properties.addAll(List.of("shard-tenancy.unreachable-shard-policy=start-without",
					"shard-tenancy.unreachable-shard-retry-interval=200ms"));
			try (ConfigurableApplicationContext context = start(properties)) {
				ShardTopology topology = context.getBean(ShardTopology.class);
				assertThat(topology.pendingShardIds()).containsExactly("shard-2");
				save(context, "acme", "Felix");
				Throwable refused = catchThrowable(() -> save(context, "initech", "Peter"));
				Throwable cause = refused;
				while (cause != null && !(cause instanceof ShardUnavailableException)) {
					cause = cause.getCause();
				}
				assertThat(cause).as("cause of %s", refused).isInstanceOf(ShardUnavailableException.class);

				shard2.start();
				await().atMost(Duration.ofSeconds(60)).until(() -> topology.contains("shard-2"));
				save(context, "initech", "Peter");
				Pets pets = context.getBean(Pets.class);
				List<Pet> initech = TenantContext.callAs("initech", pets::findAll);
				assertThat(initech).extracting(Pet::getName).containsExactlyInAnyOrder("Milton", "Peter");
			}
			finally {
				shard2.stop();
			}
		}
	}

	private static ConfigurableApplicationContext start(List<String> properties) {
		return new SpringApplicationBuilder(NoTenantApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
	}

	private static void save(ConfigurableApplicationContext context, String tenant, String name) {
		PetTypes types = context.getBean(PetTypes.class);
		Pets pets = context.getBean(Pets.class);
		TenantContext.runAs(tenant, () -> pets.save(new Pet(name, types.findById(1).orElseThrow())));
	}

	private static String url(ScratchPostgres postgres, String database) {
		return postgres.server().jdbcUrl().replace("/postgres", "/" + database);
	}

	private static int freePort() throws java.io.IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
