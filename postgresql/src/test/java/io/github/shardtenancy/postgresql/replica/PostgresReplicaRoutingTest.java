package io.github.shardtenancy.postgresql.replica;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.ReplicaSettings;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.TransactionCharacteristics;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.internal.topology.Replica;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.spi.MoveHook;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import io.github.shardtenancy.testing.pg.PostgresServer;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import io.github.shardtenancy.testing.pg.StreamingReplica;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Read replicas on a real PostgreSQL streaming replica ({@link StreamingReplica}): shard-1 has a hot standby; the
 * directory and shard-2 live on the primary server too. Read-only transactions (declared through
 * {@link TransactionCharacteristics}, as the Spring Boot module does for {@code @Transactional(readOnly = true)}) of
 * ACTIVE tenants are served by the replica while its lag is within the bound; writes, a replica paused beyond the
 * bound, a stopped replica and a moving tenant go to the primary; a failover changes the topology only.
 * {@code pg_is_in_recovery()} inside the transaction tells which server served it.
 */
@DisplayName("PostgreSQL: read replicas per shard on a real streaming replica")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PostgresReplicaRoutingTest {

	private static final Duration MAX_LAG = Duration.ofSeconds(2);

	private StreamingReplica pair;

	/** The directory and shard-2, on a server of their own, so that shard-1's primary can fail over. */
	private ScratchPostgres others;

	private ShardTenancy tenancy;

	@BeforeAll
	void start() throws SQLException {
		this.others = ScratchPostgres.start("replica-directory");
		ShardTenancyMigrations.migrateDirectory(this.others.createDatabase("directory", 2));
		ShardTenancyMigrations.migrateShard(this.others.createDatabase("shard_2", 2), "shard-2",
				List.of(PostgresCluster.NOTES_CHANGELOG));
		this.pair = StreamingReplica.start("replica-routing");
		try (Connection c = connect(this.pair.primary(), "postgres"); Statement s = c.createStatement()) {
			s.execute("CREATE DATABASE shard_1");
		}
		try (HikariDataSource ds = new HikariDataSource(config(this.pair.primary(), "shard_1"))) {
			ShardTenancyMigrations.migrateShard(ds, "shard-1", List.of(PostgresCluster.NOTES_CHANGELOG));
		}
		this.tenancy = ShardTenancy.builder()
			.directory(config(this.others.server(), "directory"))
			.shard("shard-1", config(this.pair.primary(), "shard_1"))
			.shard("shard-2", config(this.others.server(), "shard_2"))
			.replica("shard-1", "standby", config(this.pair.replica(), "shard_1"))
			.replicaRouting(new ReplicaSettings(true, MAX_LAG, Duration.ofMillis(100)))
			// Routes change only when a test refreshes them (or the fence rejects one), never in between.
			.router(RouterSettings.defaults().withSyncInterval(Duration.ofHours(1)))
			.tenantTables(List.of(PostgresCluster.NOTES))
			.actor("replica-test")
			.build();
		this.tenancy.start();
	}

	@AfterAll
	void stop() {
		if (this.tenancy != null) {
			this.tenancy.close();
		}
		if (this.pair != null) {
			this.pair.close();
		}
		if (this.others != null) {
			this.others.close();
		}
	}

	private static HikariConfig config(PostgresServer server, String database) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(server.jdbcUrl().replace("/postgres", "/" + database));
		config.setUsername(server.user());
		config.setPassword(server.password());
		config.setMaximumPoolSize(4);
		config.setConnectionTimeout(2_000);
		return config;
	}

	private static Connection connect(PostgresServer server, String database) throws SQLException {
		return DriverManager.getConnection(server.jdbcUrl().replace("/postgres", "/" + database), server.user(),
				server.password());
	}

	/** Which server serves a transaction of the tenant, and how many notes it sees. */
	record Seen(boolean replica, long notes) {
	}

	private Seen read(String tenant, boolean readOnly) throws Exception {
		return TenantContext.callAs(tenant, () -> {
			try (TransactionCharacteristics.Declaration ignored = TransactionCharacteristics.begin(null, readOnly);
					Connection c = this.tenancy.dataSource().getConnection();
					PreparedStatement ps = c
						.prepareStatement("SELECT pg_is_in_recovery(), (SELECT count(*) FROM pg_note WHERE tenant_id = ?)")) {
				ps.setString(1, tenant);
				try (ResultSet rs = ps.executeQuery()) {
					rs.next();
					return new Seen(rs.getBoolean(1), rs.getLong(2));
				}
			}
		});
	}

	private void write(String tenant, String text) throws Exception {
		TenantContext.callAs(tenant, () -> {
			try (Connection c = this.tenancy.dataSource().getConnection();
					PreparedStatement ps = c.prepareStatement("INSERT INTO pg_note (id, tenant_id, text) VALUES (?, ?, ?)")) {
				ps.setObject(1, UUID.randomUUID());
				ps.setString(2, tenant);
				ps.setString(3, text);
				return ps.executeUpdate();
			}
		});
	}

	private String newTenant(String prefix) {
		String tenant = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
		this.tenancy.admin().create(tenant, "shard-1");
		return tenant;
	}

	private ShardTenancy otherInstance(MoveHook hook) {
		return ShardTenancy.builder()
			.directory(config(this.others.server(), "directory"))
			.shard("shard-1", config(this.pair.primary(), "shard_1"))
			.shard("shard-2", config(this.others.server(), "shard_2"))
			.tenantTables(List.of(PostgresCluster.NOTES))
			.actor("replica-test-mover")
			.moveHook(hook)
			.build();
	}

	private Replica standby() {
		return Internals.topology(this.tenancy).replicas("shard-1").get(0);
	}

	@Test
	@Order(1)
	@DisplayName("a read-only transaction of an ACTIVE tenant is served by the replica once it has replayed the write; "
			+ "a read-write one by the primary")
	void readOnlyGoesToTheReplica() throws Exception {
		String tenant = newTenant("ro");
		write(tenant, "one");

		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			Seen seen = read(tenant, true);
			assertThat(seen.replica()).isTrue();
			assertThat(seen.notes()).isEqualTo(1);
		});
		assertThat(read(tenant, false)).isEqualTo(new Seen(false, 1));
	}

	@Test
	@Order(2)
	@DisplayName("replay paused: once the replica is behind by more than max-lag the primary serves, with the new write; "
			+ "resumed, the replica serves again")
	void lagBeyondTheBoundGoesToThePrimary() throws Exception {
		String tenant = newTenant("lag");
		await().atMost(Duration.ofSeconds(30)).until(() -> read(tenant, true).replica());

		this.pair.pauseReplay();
		long paused = System.nanoTime();
		try {
			write(tenant, "after pause");
			// Until the bound is passed the replica may serve, but never a state older than max-lag: it is allowed
			// not to see the write yet. After it, the primary serves and sees the write.
			await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
				Seen seen = read(tenant, true);
				assertThat(seen.replica()).isFalse();
				assertThat(seen.notes()).isEqualTo(1);
			});
			long switched = System.nanoTime() - paused;
			LoggerFactory.getLogger(PostgresReplicaRoutingTest.class)
				.info("Replay paused: the primary served read-only work after {} ms (max-lag {} ms); the replica's "
						+ "measured lag then was {} ms", switched / 1_000_000, MAX_LAG.toMillis(),
						standby().lagNanos(System.nanoTime()) / 1_000_000);
			// The lag counts from the replica's last caught-up sample, taken at most one sample interval (100 ms) and
			// a sample's duration before the pause.
			assertThat(Duration.ofNanos(switched)).isGreaterThanOrEqualTo(MAX_LAG.minusMillis(300));
			assertThat(standby().lagNanos(System.nanoTime())).isGreaterThan(MAX_LAG.toNanos());
		}
		finally {
			this.pair.resumeReplay();
		}
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(read(tenant, true))
			.isEqualTo(new Seen(true, 1)));
	}

	@Test
	@Order(3)
	@DisplayName("a MIGRATING tenant's read-only transactions go to the primary; after its move they go to its new shard")
	void movingTenantReadsFromThePrimary() throws Exception {
		String tenant = newTenant("moving");
		write(tenant, "moving");
		await().atMost(Duration.ofSeconds(30)).until(() -> read(tenant, true).replica());

		CountDownLatch marked = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		ShardTenancy mover = otherInstance((moveId, step) -> {
				if (step == MoveStep.MARKED) {
					marked.countDown();
					try {
						release.await(60, TimeUnit.SECONDS);
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}
			});
		try {
			mover.start();
			CompletableFuture<?> move = CompletableFuture
				.runAsync(() -> mover.mover().moveAndWait(tenant, "shard-2", MoveSettings.defaults()));
			assertThat(marked.await(60, TimeUnit.SECONDS)).isTrue();
			this.tenancy.router().refresh();
			assertThat(this.tenancy.router().route(tenant).state()).isEqualTo(TenantState.MIGRATING);
			assertThat(read(tenant, true)).isEqualTo(new Seen(false, 1));
			release.countDown();
			move.get(60, TimeUnit.SECONDS);
		}
		finally {
			release.countDown();
			mover.close();
		}
		// The other instance moved the tenant: this one's route is stale until it reads the directory again (the
		// retry layer does so after the fence's rejection, SQLSTATE 40001).
		this.tenancy.router().refresh();
		assertThat(this.tenancy.router().route(tenant).shardId()).isEqualTo("shard-2");
		assertThat(read(tenant, true)).isEqualTo(new Seen(false, 1));
	}

	@Test
	@Order(4)
	@DisplayName("a route gone stale (the tenant moved away by another instance) is rejected by the replica's replayed "
			+ "fence (MOVED, SQLSTATE 40001, retryable) instead of reading the rows left behind")
	void replayedFenceRejectsAStaleRoute() throws Exception {
		String tenant = newTenant("stale");
		write(tenant, "stale");
		await().atMost(Duration.ofSeconds(30)).until(() -> read(tenant, true).replica());

		try (ShardTenancy other = otherInstance(MoveHook.NONE)) {
			other.start();
			other.mover().moveAndWait(tenant, "shard-2", MoveSettings.defaults());
		}
		assertThat(this.tenancy.router().route(tenant).shardId()).isEqualTo("shard-1");
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
			// The replica is within the bound, so read-only work still goes there; once it has replayed the fence
			// change, the begin rejects the stale route.
			assertThat(standby().lagNanos(System.nanoTime())).isLessThanOrEqualTo(MAX_LAG.toNanos());
			Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> read(tenant, true));
			assertThat(thrown).isInstanceOf(SQLException.class).hasMessageContaining("MOVED");
			assertThat(((SQLException) thrown).getSQLState()).isEqualTo("40001");
		});
		this.tenancy.router().refresh();
		assertThat(read(tenant, true)).isEqualTo(new Seen(false, 1));
	}

	@Test
	@Order(5)
	@DisplayName("replica stopped: the primary serves read-only transactions without an error; started, the replica "
			+ "serves again")
	void stoppedReplicaFallsBackToThePrimary() throws Exception {
		String tenant = newTenant("down");
		write(tenant, "down");
		await().atMost(Duration.ofSeconds(30)).until(() -> read(tenant, true).replica());

		this.pair.replica().stop();
		try {
			assertThat(read(tenant, true)).isEqualTo(new Seen(false, 1));
			assertThat(read(tenant, true)).isEqualTo(new Seen(false, 1));
			await().atMost(Duration.ofSeconds(10)).until(() -> standby().problem() != null);
		}
		finally {
			this.pair.replica().start();
		}
		await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(read(tenant, true))
			.isEqualTo(new Seen(true, 1)));
	}

	@Test
	@Order(6)
	@DisplayName("the replica is recorded in the directory database (shard_replica); another instance that has no "
			+ "replica configured adds it on syncShards()")
	void replicasAreRecordedForOtherInstances() {
		assertThat(this.tenancy.admin().replicas()).singleElement().satisfies(record -> {
			assertThat(record.shardId()).isEqualTo("shard-1");
			assertThat(record.name()).isEqualTo("standby");
			assertThat(record.jdbcUrl()).isEqualTo(config(this.pair.replica(), "shard_1").getJdbcUrl());
		});
		try (ShardTenancy other = otherInstance(MoveHook.NONE)) {
			other.start();
			assertThat(Internals.topology(other).replicas("shard-1")).isEmpty();
			other.admin().syncShards();
			assertThat(Internals.topology(other).replicas("shard-1")).extracting(Replica::name)
				.containsExactly("standby");
		}
	}

	@Test
	@Order(7)
	@DisplayName("failover: the replica promoted and the shard pointed at it is a topology change; no directory entry "
			+ "changes, reads and writes go on against the new primary")
	void failoverIsATopologyChange() throws Exception {
		String tenant = newTenant("failover");
		write(tenant, "before");
		await().atMost(Duration.ofSeconds(30)).until(() -> read(tenant, true).equals(new Seen(true, 1)));
		DirectoryEntry before = this.tenancy.router().route(tenant);
		Topology topology = Internals.topology(this.tenancy);
		javax.sql.DataSource oldPool = topology.dataSource("shard-1");

		this.pair.promoteReplica();
		await().atMost(Duration.ofSeconds(10)).until(() -> standby().problem() != null);
		this.tenancy.admin().failoverShard("shard-1", config(this.pair.replica(), "shard_1"));
		this.pair.primary().stop();

		assertThat(topology.dataSource("shard-1")).isNotSameAs(oldPool);
		assertThat(topology.replicas("shard-1")).as("replicas of the old primary no longer serve").isEmpty();
		assertThat(this.tenancy.admin().replicas()).as("nor are they recorded")
			.noneMatch((replica) -> replica.shardId().equals("shard-1"));
		assertThat(this.tenancy.admin().shards().stream().filter(s -> s.shardId().equals("shard-1")).findFirst()
			.orElseThrow().jdbcUrl()).isEqualTo(config(this.pair.replica(), "shard_1").getJdbcUrl());
		write(tenant, "after");
		assertThat(read(tenant, false)).isEqualTo(new Seen(false, 2));
		// The promoted server is no replica any more: read-only work goes to the primary (the same server).
		assertThat(read(tenant, true)).isEqualTo(new Seen(false, 2));
		DirectoryEntry after = this.tenancy.router().route(tenant);
		assertThat(after.shardId()).isEqualTo(before.shardId());
		assertThat(after.version()).isEqualTo(before.version());
		assertThat(after.state()).isEqualTo(TenantState.ACTIVE);
	}

}
