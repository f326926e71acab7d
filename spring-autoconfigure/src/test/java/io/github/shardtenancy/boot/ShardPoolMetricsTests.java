package io.github.shardtenancy.boot;

import java.sql.Connection;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * HikariCP's meters for every shard pool, tagged with the pool name and the shard: the configured shards, a shard
 * registered at runtime, a shard another instance registered; and gone once the shard is retired. On H2 shards, with
 * Boot's metrics auto-configuration and its simple registry.
 */
@DisplayName("HikariCP meters per shard pool")
class ShardPoolMetricsTests {

	private static ApplicationContextRunner runner(String directoryUrl, String shard1Url) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class, MetricsAutoConfiguration.class,
					CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class))
			.withPropertyValues("shard-tenancy.directory.url=" + directoryUrl,
					"shard-tenancy.shards.shard-1.url=" + shard1Url, "shard-tenancy.sync.interval=1h");
	}

	private static Search hikari(MeterRegistry registry, String name, String shardId) {
		return registry.find(name).tag("shard", shardId).tag("pool", "shard-" + shardId);
	}

	@Test
	@DisplayName("every configured shard pool has HikariCP's meters with its shard tag, and they record its use")
	void configuredShards() {
		runner(ShardTenancySettingsTests.h2("directory"), ShardTenancySettingsTests.h2("shard-1"))
			.withPropertyValues("shard-tenancy.shards.shard-2.url=" + ShardTenancySettingsTests.h2("shard-2"),
					"shard-tenancy.shards.shard-2.maximum-pool-size=3")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				ShardTopology topology = context.getBean(ShardTopology.class);
				for (String shardId : new String[] { "shard-1", "shard-2" }) {
					for (String name : new String[] { "hikaricp.connections", "hikaricp.connections.active",
							"hikaricp.connections.idle", "hikaricp.connections.pending", "hikaricp.connections.max",
							"hikaricp.connections.min" }) {
						assertThat(hikari(registry, name, shardId).gauge()).as(name + " of " + shardId).isNotNull();
					}
					long acquiredBefore = hikari(registry, "hikaricp.connections.acquire", shardId).timer().count();
					try (Connection connection = topology.dataSource(shardId).getConnection()) {
						assertThat(connection.isValid(1)).isTrue();
					}
					assertThat(hikari(registry, "hikaricp.connections.acquire", shardId).timer().count())
						.isEqualTo(acquiredBefore + 1);
				}
				assertThat(hikari(registry, "hikaricp.connections.max", "shard-2").gauge().value()).isEqualTo(3);
				// Meter names and tags as HikariCP and Micrometer name them: no shard meter without both tags.
				assertThat(registry.find("hikaricp.connections").meters()).allSatisfy((meter) -> {
					assertThat(meter.getId().getTag("pool")).isNotNull();
					assertThat(meter.getId().getTag("shard")).isNotNull();
				});
			});
	}

	@Test
	@DisplayName("a shard registered at runtime gets its meters, and loses them when it is retired")
	void runtimeShardRegisteredAndRetired() {
		runner(ShardTenancySettingsTests.h2("directory"), ShardTenancySettingsTests.h2("shard-1")).run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			TenantAdmin admin = context.getBean(TenantAdmin.class);
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(ShardTenancySettingsTests.h2("shard-3"));
			config.setMaximumPoolSize(2);
			admin.registerShard("shard-3", null, config);
			assertThat(hikari(registry, "hikaricp.connections.max", "shard-3").gauge()).isNotNull();
			assertThat(hikari(registry, "hikaricp.connections.max", "shard-3").gauge().value()).isEqualTo(2);

			admin.retireShard("shard-3");
			assertThat(registry.find("hikaricp.connections").tag("shard", "shard-3").meters()).isEmpty();
			assertThat(registry.getMeters().stream().map(Meter::getId))
				.noneMatch((id) -> "shard-3".equals(id.getTag("shard")));
			// The other shard's meters stay.
			assertThat(hikari(registry, "hikaricp.connections", "shard-1").gauge()).isNotNull();
		});
	}

	@Test
	@DisplayName("the pool of a shard another instance registered gets its meters when this instance meets it")
	void shardMetAtRuntime() {
		String directory = ShardTenancySettingsTests.h2("directory");
		String shard1 = ShardTenancySettingsTests.h2("shard-1");
		runner(directory, shard1).run((registering) -> {
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(ShardTenancySettingsTests.h2("shard-4"));
			registering.getBean(TenantAdmin.class).registerShard("shard-4", null, config);
			runner(directory, shard1).run((other) -> {
				MeterRegistry registry = other.getBean(MeterRegistry.class);
				assertThat(registry.find("hikaricp.connections").tag("shard", "shard-4").meters()).isEmpty();
				other.getBean(TenantAdmin.class).syncShards();
				assertThat(other.getBean(ShardTopology.class).contains("shard-4")).isTrue();
				assertThat(hikari(registry, "hikaricp.connections", "shard-4").gauge()).isNotNull();
			});
		});
	}

}
