package io.github.shardtenancy.micrometer;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import java.util.ArrayList;
import java.util.List;
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

	private ShardTenancy tenancy;

	private Router router;

	private ShardTenancyObserver observer;

	private final List<String> toldToSecond = new ArrayList<>();

	@BeforeEach
	void start() {
		JdbcDataSource dataSource = new JdbcDataSource();
		dataSource.setURL("jdbc:h2:mem:metrics-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		ShardTenancyMigrations.migrateDirectory(dataSource);
		this.directory = new Directory(dataSource);
		this.directory.create("acme", "shard-1", "test");
		JdbcDataSource shard = new JdbcDataSource();
		shard.setURL("jdbc:h2:mem:metrics-shard-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		this.tenancy = ShardTenancy.builder().directory(dataSource).shard("shard-1", shard).build();
		this.router = (Router) this.tenancy.router();
		ShardTenancyMetrics metrics = new ShardTenancyMetrics(this.router);
		metrics.bindTo(this.registry);
		this.tenancy.addObserver(metrics);
		// a second observer, added after the binder: both are told (observers are added, never replaced)
		this.observer = new ShardTenancyObserver() {
			@Override
			public void fenceRejected(String shardId, String reason) {
				ShardTenancyMetricsTest.this.toldToSecond.add(shardId + "/" + reason);
			}
		};
		this.tenancy.addObserver(this.observer);
	}

	@AfterEach
	void stop() {
		this.tenancy.close();
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
	@DisplayName("the directory version gauge follows the router")
	void versionGauge() {
		long version = this.tenancy.routeFeed().resync();

		assertThat(this.registry.get("shardtenancy.router.directory.version").gauge().value()).isEqualTo(version);
	}

	@Test
	@DisplayName("rejections are counted per shard and reason, never per tenant, and every added observer is told")
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
		assertThat(this.toldToSecond).containsExactly("shard-1/MOVED", "shard-1/MOVED", "shard-2/FROZEN");
	}

	@Test
	@DisplayName("re-run mismatches are counted per table, never per tenant, told through the tenancy's observer")
	void rerunMismatchesAreTaggedByTable() {
		assertThat(this.registry.find("shardtenancy.retries.mismatches").counter()).isNull();

		this.tenancy.observer().rerunMismatch("acme", "owners");
		this.tenancy.observer().rerunMismatch("globex", "owners");
		this.tenancy.observer().rerunMismatch(null, "pets");

		assertThat(this.registry.get("shardtenancy.retries.mismatches").tag("table", "owners").counter().count())
			.isEqualTo(2);
		assertThat(this.registry.get("shardtenancy.retries.mismatches").tag("table", "pets").counter().count())
			.isEqualTo(1);
		assertThat(this.registry.get("shardtenancy.retries.mismatches").counter().getId().getTags())
			.extracting(io.micrometer.core.instrument.Tag::getKey)
			.containsExactly("table");
	}

}
