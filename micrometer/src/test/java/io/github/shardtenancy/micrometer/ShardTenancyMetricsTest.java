package io.github.shardtenancy.micrometer;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.directory.Directory;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.routing.RouterSettings;
import io.github.shardtenancy.routing.TenantRouter;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The router's meters, on a real H2 directory and router. */
class ShardTenancyMetricsTest {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private Directory directory;

	private TenantRouter router;

	@BeforeEach
	void start() {
		JdbcDataSource dataSource = new JdbcDataSource();
		dataSource.setURL("jdbc:h2:mem:metrics-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		ShardTenancyMigrations.migrateDirectory(dataSource);
		this.directory = new Directory(dataSource);
		this.directory.create("acme", "shard-1", "test");
		this.router = new TenantRouter(this.directory, RouterSettings.defaults());
		new ShardTenancyMetrics(this.router).bindTo(this.registry);
	}

	@AfterEach
	void stop() {
		this.router.close();
	}

	private double lookups(String result) {
		return this.registry.get("shardtenancy.router.lookups").tag("result", result).functionCounter().count();
	}

	@Test
	@DisplayName("a miss, two hits and a negative hit are counted by result, and the directory reads are timed")
	void lookupsAreCountedAndDirectoryReadsTimed() {
		this.router.route("acme");
		this.router.route("acme");
		this.router.route("acme");
		assertThatThrownBy(() -> this.router.route("nobody")).isInstanceOf(UnknownTenantException.class);
		assertThatThrownBy(() -> this.router.route("nobody")).isInstanceOf(UnknownTenantException.class);

		assertThat(lookups("miss")).isEqualTo(2);
		assertThat(lookups("hit")).isEqualTo(2);
		assertThat(lookups("negative_hit")).isEqualTo(1);
		assertThat(this.registry.get("shardtenancy.directory.lookups").tag("result", "found").timer().count())
			.isEqualTo(1);
		assertThat(this.registry.get("shardtenancy.directory.lookups").tag("result", "unknown").timer().count())
			.isEqualTo(1);
		assertThat(this.registry.get("shardtenancy.router.cache.entries").gauge().value()).isEqualTo(1);
	}

	@Test
	@DisplayName("the directory version gauge follows the router, and binding adds the binder to the router's observers")
	void versionGaugeAndObserver() {
		long version = this.router.loadSnapshot();

		assertThat(this.registry.get("shardtenancy.router.directory.version").gauge().value()).isEqualTo(version);
		assertThat(this.router.observer()).isInstanceOf(ShardTenancyMetrics.class);
	}

	@Test
	@DisplayName("binding keeps an observer added before, both are told every event, and binding twice counts once")
	void bindingAddsToTheObserversAlreadyThere() {
		this.router.close();
		this.router = new TenantRouter(this.directory, RouterSettings.defaults());
		List<String> seen = new CopyOnWriteArrayList<>();
		this.router.addObserver(new ShardTenancyObserver() {
			@Override
			public void fenceRejected(String shardId, String reason) {
				seen.add("rejected " + shardId + " " + reason);
			}

			@Override
			public void directoryLookup(long nanos, boolean found) {
				seen.add("lookup " + found);
			}
		});
		SimpleMeterRegistry second = new SimpleMeterRegistry();
		ShardTenancyMetrics metrics = new ShardTenancyMetrics(this.router);
		metrics.bindTo(second);
		metrics.bindTo(second);

		this.router.route("acme");
		this.router.observer().fenceRejected("shard-1", "MOVED");

		assertThat(seen).containsExactly("lookup true", "rejected shard-1 MOVED");
		assertThat(second.get("shardtenancy.directory.lookups").tag("result", "found").timer().count()).isEqualTo(1);
		assertThat(second.get("shardtenancy.fence.rejections").tags("shard", "shard-1", "reason", "MOVED")
			.counter().count()).isEqualTo(1);

		assertThat(this.router.removeObserver(metrics)).isTrue();
		this.router.observer().fenceRejected("shard-1", "MOVED");
		assertThat(seen).hasSize(3);
		assertThat(second.get("shardtenancy.fence.rejections").tags("shard", "shard-1", "reason", "MOVED")
			.counter().count()).isEqualTo(1);
	}

	@Test
	@DisplayName("rejections are counted per shard and reason, never per tenant")
	void rejectionsAreTaggedByShardAndReason() {
		this.router.observer().fenceRejected("shard-1", "MOVED");
		this.router.observer().fenceRejected("shard-1", "MOVED");
		this.router.observer().fenceRejected("shard-2", "FROZEN");

		assertThat(this.registry.get("shardtenancy.fence.rejections").tags("shard", "shard-1", "reason", "MOVED")
			.counter().count()).isEqualTo(2);
		assertThat(this.registry.get("shardtenancy.fence.rejections").tags("shard", "shard-2", "reason", "FROZEN")
			.counter().count()).isEqualTo(1);
		assertThat(this.registry.get("shardtenancy.fence.rejections").counter().getId().getTags())
			.extracting(io.micrometer.core.instrument.Tag::getKey)
			.containsExactlyInAnyOrder("shard", "reason");
	}

}
