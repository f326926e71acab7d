package io.github.shardtenancy.testing.instances;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.InstanceRecord;
import io.github.shardtenancy.InstanceSettings;
import io.github.shardtenancy.InstanceState;
import io.github.shardtenancy.InstancesReport;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyBuilder;
import io.github.shardtenancy.spi.BackgroundScheduler;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The instance heartbeat ({@link ShardTenancy#instances()}) of several tenancies on one directory database: each
 * records the directory version its router applied; one whose sync is stopped is reported lagging and shows in the
 * skew; a closed one, or one whose background threads stopped, is reported gone, and its row is removed later.
 * Subclasses give the databases, migrated (the directory changelog and a shard {@code shard-1}).
 */
public abstract class InstanceHeartbeatContractTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private final List<ShardTenancy> opened = new ArrayList<>();

	private final List<ScheduledExecutorService> executors = new ArrayList<>();

	private final String prefix = "it-" + UUID.randomUUID().toString().substring(0, 6) + "-";

	/**
	 * @param database {@code directory} or {@code shard-1}
	 * @return a new pool configuration of that database, migrated
	 */
	protected abstract HikariConfig pool(String database);

	/** @return a pool of the directory database the test may use directly (the subclass closes it) */
	protected abstract DataSource directory();

	/** Forgets the rows earlier tests left, so that every test sees only its own instances. */
	@BeforeEach
	void clearInstances() throws SQLException {
		try (Connection c = directory().getConnection(); Statement s = c.createStatement()) {
			s.executeUpdate("DELETE FROM shard_instance");
		}
	}

	@AfterEach
	void closeAll() {
		this.opened.forEach(ShardTenancy::close);
		this.executors.forEach(ScheduledExecutorService::shutdownNow);
	}

	/** Heartbeat every 100 ms, gone after 1 s, removed after 2 s, lagging after 1 s behind. */
	private static InstanceSettings fast(String id) {
		return InstanceSettings.defaults()
			.withInstanceId(id)
			.withHeartbeatInterval(Duration.ofMillis(100))
			.withGoneAfter(Duration.ofSeconds(1))
			.withRemoveAfter(Duration.ofSeconds(2))
			.withMaxLag(Duration.ofSeconds(1));
	}

	private ShardTenancy start(String name, Duration syncInterval, InstanceSettings settings,
			@Nullable BackgroundScheduler scheduler) {
		ShardTenancyBuilder builder = ShardTenancy.builder()
			.directory(pool("directory"))
			.shard("shard-1", pool("shard-1"))
			.tenantTables(List.of())
			.actor(name + "@test")
			.router(RouterSettings.defaults().withSyncInterval(syncInterval))
			.instances(settings);
		if (scheduler != null) {
			builder.backgroundScheduler(scheduler);
		}
		ShardTenancy tenancy = builder.build();
		this.opened.add(tenancy);
		tenancy.start();
		return tenancy;
	}

	private ShardTenancy start(String name, Duration syncInterval) {
		return start(name, syncInterval, fast(this.prefix + name), null);
	}

	private DirectoryEntry change(ShardTenancy tenancy) {
		return tenancy.admin().create(this.prefix + UUID.randomUUID().toString().substring(0, 8), "shard-1");
	}

	private static InstanceRecord row(InstancesReport report, String instanceId) {
		return report.instances()
			.stream()
			.filter((instance) -> instance.instanceId().equals(instanceId))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no row of " + instanceId + " in " + report));
	}

	@Test
	@DisplayName("two instances record the directory version they applied; after a change both report the new one")
	void bothInstancesReportTheNewVersion() {
		ShardTenancy first = start("first", Duration.ofMillis(100));
		ShardTenancy second = start("second", Duration.ofMillis(100));
		String firstId = first.instances().instanceId();
		String secondId = second.instances().instanceId();
		assertThat(firstId).isEqualTo(this.prefix + "first");

		InstancesReport before = first.instances().report();
		assertThat(before.instances()).extracting(InstanceRecord::instanceId).containsExactly(firstId, secondId);
		assertThat(before.live()).hasSize(2);

		DirectoryEntry created = change(first);

		await().atMost(WAIT).untilAsserted(() -> {
			InstancesReport report = second.instances().report();
			assertThat(report.directoryVersion()).isGreaterThanOrEqualTo(created.version());
			assertThat(report.instances()).allSatisfy((instance) -> {
				assertThat(instance.appliedVersion()).isEqualTo(report.directoryVersion());
				assertThat(instance.state()).isEqualTo(InstanceState.LIVE);
				assertThat(instance.behindSince()).isNull();
			});
			assertThat(report.skew()).isZero();
			assertThat(report.lowestAppliedVersion()).hasValue(report.directoryVersion());
		});
		// each instance's own heartbeat read the same
		await().atMost(WAIT).untilAsserted(() -> assertThat(first.instances().lastReport()).hasValueSatisfying(
				(report) -> assertThat(row(report, secondId).appliedVersion()).isGreaterThanOrEqualTo(created.version())));
		InstanceRecord second2 = row(first.instances().report(), secondId);
		assertThat(second2.startedAt()).isBeforeOrEqualTo(second2.appliedAt());
		assertThat(second2.appliedAt()).isBeforeOrEqualTo(second2.heartbeatAt());
		assertThat(second2.libraryVersion()).isNotBlank();
		assertThat(second2.stoppedAt()).isNull();
	}

	@Test
	@DisplayName("an instance whose sync is stopped is reported lagging after max-lag, shows in the skew, and recovers once it syncs")
	void stalledInstanceIsLagging() {
		ShardTenancy healthy = start("healthy", Duration.ofMillis(100));
		// its router loads the snapshot at start, then does not poll again for an hour (and has no push listener)
		ShardTenancy stalled = start("stalled", Duration.ofHours(1));
		String stalledId = stalled.instances().instanceId();
		stalled.routeFeed().refresh(); // the versions its own start wrote (the shard registration)
		InstancesReport before = stalled.instances().heartbeat();
		assertThat(row(before, stalledId).appliedVersion()).isEqualTo(before.directoryVersion());
		assertThat(row(before, stalledId).state()).isEqualTo(InstanceState.LIVE);
		assertThat(row(before, stalledId).lag()).isZero();

		DirectoryEntry created = change(healthy);

		await().atMost(WAIT).untilAsserted(() -> {
			InstancesReport report = healthy.instances().report();
			InstanceRecord row = row(report, stalledId);
			assertThat(row.state()).isEqualTo(InstanceState.LAGGING);
			assertThat(row.appliedVersion()).isLessThan(created.version());
			assertThat(row.behindSince()).isNotNull();
			assertThat(row.lag()).isGreaterThan(Duration.ofSeconds(1));
			assertThat(report.lagging()).extracting(InstanceRecord::instanceId).containsExactly(stalledId);
			assertThat(report.lowestAppliedVersion()).hasValue(row.appliedVersion());
			assertThat(report.skew()).isEqualTo(report.directoryVersion() - row.appliedVersion()).isPositive();
			assertThat(row(report, healthy.instances().instanceId()).state()).isEqualTo(InstanceState.LIVE);
		});
		// the stalled instance's own heartbeat knows it too
		await().atMost(WAIT).untilAsserted(() -> assertThat(stalled.instances().lastReport())
			.hasValueSatisfying((report) -> assertThat(row(report, stalledId).state()).isEqualTo(InstanceState.LAGGING)));

		stalled.routeFeed().refresh(); // its sync runs again

		await().atMost(WAIT).untilAsserted(() -> {
			InstancesReport report = healthy.instances().report();
			assertThat(row(report, stalledId).state()).isEqualTo(InstanceState.LIVE);
			assertThat(row(report, stalledId).behindSince()).isNull();
			assertThat(report.lagging()).isEmpty();
			assertThat(report.skew()).isZero();
		});
	}

	@Test
	@DisplayName("a closed instance is gone at once, and its row is removed after remove-after")
	void closedInstanceIsGoneThenRemoved() {
		ShardTenancy staying = start("staying", Duration.ofMillis(100));
		ShardTenancy leaving = start("leaving", Duration.ofMillis(100));
		String leavingId = leaving.instances().instanceId();
		assertThat(row(staying.instances().report(), leavingId).live()).isTrue();

		leaving.close();

		InstanceRecord closed = row(staying.instances().report(), leavingId);
		assertThat(closed.state()).isEqualTo(InstanceState.GONE);
		assertThat(closed.stoppedAt()).isNotNull();
		assertThat(staying.instances().report().live()).extracting(InstanceRecord::instanceId)
			.containsExactly(staying.instances().instanceId());
		assertThatThrownBy(() -> leaving.instances().heartbeat()).isInstanceOf(IllegalStateException.class);

		await().atMost(WAIT).untilAsserted(() -> assertThat(staying.instances().report().instances())
			.extracting(InstanceRecord::instanceId)
			.containsExactly(staying.instances().instanceId()));
	}

	@Test
	@DisplayName("an instance whose background threads stop is reported gone once silent for gone-after; a lagging gone instance is not in the skew")
	void silentInstanceIsGone() {
		ShardTenancy watching = start("watching", Duration.ofMillis(100));
		ScheduledExecutorService threads = Executors.newSingleThreadScheduledExecutor();
		this.executors.add(threads);
		ShardTenancy silent = start("silent", Duration.ofMillis(100), fast(this.prefix + "silent")
			.withRemoveAfter(Duration.ofHours(1)), BackgroundScheduler.of(threads));
		String silentId = silent.instances().instanceId();
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(row(watching.instances().report(), silentId).live()).isTrue());

		threads.shutdownNow(); // neither its sync nor its heartbeat runs any more
		change(watching);

		await().atMost(WAIT).untilAsserted(() -> {
			InstancesReport report = watching.instances().report();
			InstanceRecord row = row(report, silentId);
			assertThat(row.state()).isEqualTo(InstanceState.GONE);
			assertThat(row.stoppedAt()).isNull();
			assertThat(report.live()).extracting(InstanceRecord::instanceId)
				.containsExactly(watching.instances().instanceId());
			assertThat(report.skew()).isZero();
		});
	}

	@Test
	@DisplayName("with the heartbeat disabled an instance writes no row and has no report")
	void disabledHeartbeatWritesNothing() {
		ShardTenancy enabled = start("enabled", Duration.ofMillis(100));
		ShardTenancy disabled = start("disabled", Duration.ofMillis(100),
				fast(this.prefix + "disabled").withEnabled(false), null);

		assertThat(enabled.instances().heartbeat().instances()).extracting(InstanceRecord::instanceId)
			.containsExactly(enabled.instances().instanceId());
		assertThat(disabled.instances().lastReport()).isEmpty();
		assertThatThrownBy(() -> disabled.instances().report()).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("shard-tenancy.instances.enabled");
	}

	@Test
	@DisplayName("a generated instance id names the process and differs between two tenancies")
	void generatedInstanceIds() {
		ShardTenancy one = start("one", Duration.ofMillis(100), fast(null), null);
		ShardTenancy two = start("two", Duration.ofMillis(100), fast(null), null);
		String pid = "-" + ProcessHandle.current().pid() + "-";
		assertThat(one.instances().instanceId()).contains(pid).isNotEqualTo(two.instances().instanceId());
		assertThat(one.instances().heartbeat().instances()).extracting(InstanceRecord::instanceId)
			.contains(one.instances().instanceId(), two.instances().instanceId());
	}

}
