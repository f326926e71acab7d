package io.github.shardtenancy.it.moves;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.DualRead;
import io.github.shardtenancy.DualReadSettings;
import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.internal.move.ShadowReads;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.it.support.AppInstance;
import io.github.shardtenancy.micrometer.ShardTenancyMetrics;
import io.github.shardtenancy.testing.HeldMove;
import io.github.shardtenancy.testing.TenantWriter;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The dual read during real online moves on PostgreSQL shards (the PL/pgSQL fence and change capture), with
 * application writers during the copy, the {@code shardtenancy.dualread} counter and the log line.
 */
@DisplayName("Dual read on PostgreSQL")
@ExtendWith(OutputCaptureExtension.class)
class PostgresDualReadTest {

	private static final String ORDERS = "SELECT id, amount, label FROM pg_move_order WHERE tenant_id = ?";

	static PostgresCluster cluster;

	AppInstance app;

	String tenant;

	ShadowReads dualRead;

	TenantWriter seed;

	final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private final AtomicBoolean stop = new AtomicBoolean();

	@BeforeAll
	static void servers() {
		cluster = PostgresMoveFixture.cluster();
	}

	@BeforeEach
	void instance() throws Exception {
		this.app = AppInstance.plain(cluster, "dual-read-app", RouterSettings.defaults(), 8);
		this.tenant = PostgresCluster.tenant("dual");
		this.app.admin.create(this.tenant, "shard-1");
		this.seed = PostgresMoveFixture.writer(this.app, this.tenant, this.stop).write(80);
		ShardTenancyMetrics metrics = new ShardTenancyMetrics(this.app.router);
		metrics.bindTo(this.registry);
		this.app.router.addObserver(metrics);
	}

	@AfterEach
	void close() throws Exception {
		this.stop.set(true);
		if (this.dualRead != null) {
			this.dualRead.close();
		}
		this.threads.shutdownNow();
		this.threads.awaitTermination(60, TimeUnit.SECONDS);
		this.app.close();
	}

	private ShadowReads dualRead(Topology topology, DualReadSettings settings, Mover mover) {
		this.dualRead = new ShadowReads(this.app.router, topology, settings, mover::findActive);
		this.dualRead.register("orders", ORDERS);
		return this.dualRead;
	}

	private static DualReadSettings on() {
		return DualReadSettings.defaults().withEnabled(true).withRechecks(2).withRecheckDelay(Duration.ofMillis(100));
	}

	private double counted(String outcome) {
		return Search.in(this.registry).name("shardtenancy.dualread").tags("query", "orders", "outcome", outcome)
			.counters().stream().mapToDouble(c -> c.count()).sum();
	}

	/** A move of the tenant to shard-2, held after a step (and after a second, if given). */
	private HeldMove held(Mover mover, MoveStep holdAfter, MoveStep holdAgainAfter) {
		MoveSettings settings = MoveSettings.defaults().withBatchSize(25).withCatchUpLagThreshold(0)
			.withMaxCatchUpRounds(10);
		return new HeldMove(mover::withHook, this.threads, this.tenant, "shard-2", settings, holdAfter, holdAgainAfter);
	}

	/** The application's read, through the tenant-routing DataSource and the fence. */
	private Map<Long, String> callerRead() throws SQLException {
		return this.app.inTransaction(this.tenant, c -> {
			Map<Long, String> rows = new TreeMap<>();
			try (PreparedStatement ps = c.prepareStatement("SELECT id, amount, label FROM pg_move_order "
					+ "WHERE tenant_id = ?")) {
				ps.setString(1, this.tenant);
				try (ResultSet rs = ps.executeQuery()) {
					while (rs.next()) {
						rows.put(rs.getLong(1), rs.getInt(2) + ":" + rs.getString(3));
					}
				}
			}
			return rows;
		});
	}

	@Test
	@DisplayName("under writers during the copy, the shadow read of the caught-up tenant matches, the verification "
			+ "runs the registered query and the move completes")
	void shadowReadMatchesDuringAMoveUnderWriters() throws Exception {
		List<TenantWriter> writers = new ArrayList<>();
		List<Future<TenantWriter>> running = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			TenantWriter writer = PostgresMoveFixture.writer(this.app, this.tenant, this.stop);
			writers.add(writer);
			running.add(this.threads.submit(writer));
		}
		await("the writers commit").atMost(Duration.ofSeconds(30)).until(() -> writers.stream().allMatch(w -> w.ops() > 3));
		Mover base = PostgresMoveFixture.mover(this.app);
		ShadowReads dual = dualRead(this.app.topology, on(), base);
		HeldMove move = held(base.withDualRead(dual), MoveStep.COPIED, MoveStep.CAUGHT_UP);
		this.stop.set(true);
		for (Future<TenantWriter> writer : running) {
			writer.get(60, TimeUnit.SECONDS);
		}
		move.release();
		await("the catch-up applied the writes").atMost(Duration.ofSeconds(60))
			.until(() -> move.isHeldAgain());
		assertThat(this.app.directory.find(this.tenant).orElseThrow().state()).isEqualTo(TenantState.MIGRATING);

		Map<Long, String> read = callerRead();
		DualRead.Result result = dual.compare(this.tenant, "orders").get(30, TimeUnit.SECONDS);

		assertThat(read).isNotEmpty();
		assertThat(result.outcome()).as(result.toString()).isEqualTo(DualRead.Outcome.MATCH);
		assertThat(counted("match")).isEqualTo(1);
		move.releaseAgain();
		assertThat(move.result().get(120, TimeUnit.SECONDS).step()).isEqualTo(MoveStep.DONE);
		assertThat(move.verified().stepData())
			.contains("dual-read queries equal: 1, mismatches during the move seen here: 0");
		writers.add(this.seed);
		assertThat(PostgresMoveFixture.orders(this.app, "shard-2", this.tenant))
			.isEqualTo(TenantWriter.committedOrders(writers));
		assertThat(PostgresMoveFixture.rows(this.app, "shard-1", this.tenant)).isZero();
	}

	@Test
	@DisplayName("a target row changed behind the mover's back: a mismatch counted and logged, the caller's read "
			+ "unchanged, the verification fails and the tenant stays ACTIVE on its source")
	void corruptedTargetRowIsAMismatch(CapturedOutput output) throws Exception {
		Mover base = PostgresMoveFixture.mover(this.app);
		ShadowReads dual = dualRead(this.app.topology, on(), base);
		HeldMove move = held(base.withDualRead(dual), MoveStep.CAUGHT_UP, null);
		String moveId = base.findActive(this.tenant).orElseThrow().moveId();
		Map<Long, String> before = callerRead();
		long corrupted = before.keySet().iterator().next();
		Topology.Shard target = this.app.topology.shard("shard-2");
		try (Connection c = target.dataSource().getConnection()) {
			c.setAutoCommit(false);
			target.dialect().beginMover(c, this.tenant);
			assertThat(c.createStatement().executeUpdate(
					"UPDATE pg_move_order SET label = 'tampered' WHERE id = " + corrupted)).isEqualTo(1);
			c.commit();
			target.dialect().end(c);
			c.setAutoCommit(true);
		}

		Map<Long, String> after = callerRead();
		DualRead.Result result = dual.compare(this.tenant, "orders").get(30, TimeUnit.SECONDS);

		assertThat(after).isEqualTo(before);
		assertThat(result.outcome()).as(result.toString()).isEqualTo(DualRead.Outcome.MISMATCH);
		assertThat(result.detail()).contains("first only on the target (" + corrupted + ", ").contains("tampered");
		assertThat(counted("mismatch")).isEqualTo(1);
		assertThat(output.getOut() + output.getErr()).contains("Dual read 'orders' of tenant '" + this.tenant
				+ "': source 'shard-1' and target 'shard-2' differ: source has " + before.size() + " rows");
		assertThat(dual.mismatches(moveId)).isEqualTo(1);
		move.release();
		assertThatThrownBy(() -> move.result().get(120, TimeUnit.SECONDS)).hasCauseInstanceOf(MoveException.class)
			.cause()
			.hasMessageContaining("failed for dual-read query 'orders' between source 'shard-1' and target 'shard-2'");
		assertThat(base.status(moveId).step()).isEqualTo(MoveStep.ABORTED);
		DirectoryEntry entry = this.app.directory.find(this.tenant).orElseThrow();
		assertThat(entry.shardId()).isEqualTo("shard-1");
		assertThat(entry.state()).isEqualTo(TenantState.ACTIVE);
		assertThat(callerRead()).isEqualTo(before);
	}

	@Test
	@DisplayName("a target this instance loses its network path to: an error counted within the time limit, the caller "
			+ "reads as usual and the move completes")
	void unreachableTargetIsAnError() throws Exception {
		Topology seenFromHere = new Topology();
		try (Relay relay = new Relay(cluster.shard("shard-2").jdbcUrl())) {
			seenFromHere.addShard("shard-1", this.app.topology.shard("shard-1").dataSource());
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(relay.jdbcUrl());
			config.setUsername(cluster.shard("shard-2").user());
			config.setPassword(cluster.shard("shard-2").password());
			config.setMaximumPoolSize(2);
			config.setConnectionTimeout(1000);
			seenFromHere.addShard("shard-2", config);
			Mover base = PostgresMoveFixture.mover(this.app);
			ShadowReads dual = dualRead(seenFromHere, on().withTimeout(Duration.ofSeconds(4)), base);
			HeldMove move = held(base.withDualRead(dual), MoveStep.CAUGHT_UP, null);
			assertThat(dual.compare(this.tenant, "orders").get(30, TimeUnit.SECONDS).outcome())
				.as("through the relay before it is cut")
				.isEqualTo(DualRead.Outcome.MATCH);
			Map<Long, String> before = callerRead();
			relay.close();

			long started = System.nanoTime();
			DualRead.Result result = dual.compare(this.tenant, "orders").get(30, TimeUnit.SECONDS);
			long millis = (System.nanoTime() - started) / 1_000_000;
			Map<Long, String> read = callerRead();

			assertThat(read).isEqualTo(before);
			assertThat(result.outcome()).as(result.toString()).isEqualTo(DualRead.Outcome.ERROR);
			assertThat(counted("error")).isEqualTo(1);
			assertThat(counted("match")).isEqualTo(1);
			move.release();
			assertThat(move.result().get(120, TimeUnit.SECONDS).step()).isEqualTo(MoveStep.DONE);
			System.out.println("dual read of an unreachable target (PostgreSQL): " + result.detail() + " after "
					+ millis + " ms (time limit 4000 ms)");
		}
		finally {
			seenFromHere.close();
		}
	}

	/** A TCP relay to a PostgreSQL server; {@link #close()} cuts every connection and refuses new ones. */
	private static final class Relay implements AutoCloseable {

		private final ServerSocket server;

		private final List<Socket> sockets = new CopyOnWriteArrayList<>();

		private final String database;

		Relay(String jdbcUrl) throws IOException {
			String hostPort = jdbcUrl.substring(jdbcUrl.indexOf("//") + 2, jdbcUrl.indexOf('/', jdbcUrl.indexOf("//") + 2));
			this.database = jdbcUrl.substring(jdbcUrl.indexOf('/', jdbcUrl.indexOf("//") + 2));
			int port = Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
			this.server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
			Thread acceptor = new Thread(() -> {
				while (!this.server.isClosed()) {
					try {
						Socket client = this.server.accept();
						Socket upstream = new Socket();
						upstream.connect(new InetSocketAddress("127.0.0.1", port), 5000);
						this.sockets.add(client);
						this.sockets.add(upstream);
						pipe(client, upstream);
						pipe(upstream, client);
					}
					catch (IOException ex) {
						// closed
					}
				}
			}, "dual-read-relay");
			acceptor.setDaemon(true);
			acceptor.start();
		}

		String jdbcUrl() {
			return "jdbc:postgresql://127.0.0.1:" + this.server.getLocalPort() + this.database;
		}

		private static void pipe(Socket from, Socket to) {
			Thread thread = new Thread(() -> {
				try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
					in.transferTo(out);
				}
				catch (IOException ex) {
					// cut
				}
			}, "dual-read-relay-pipe");
			thread.setDaemon(true);
			thread.start();
		}

		@Override
		public void close() throws IOException {
			this.server.close();
			for (Socket socket : this.sockets) {
				socket.close();
			}
		}

	}

}
