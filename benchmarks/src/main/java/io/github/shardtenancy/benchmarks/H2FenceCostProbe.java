package io.github.shardtenancy.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.shardtenancy.h2.H2FenceDialect;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import org.h2.jdbcx.JdbcDataSource;

/**
 * Where the H2 fence's CPU goes, below Hibernate and Spring: the transaction of figure 1 (read an order, insert a line,
 * update the order, commit) as plain JDBC on one H2 in-memory connection, on tables without triggers (plain) and on
 * tables with the fence write check and the mover's change capture installed (library: with the dialect's begin and
 * end around it), one thread. Prints the worker's CPU time per operation in microseconds, the best of 7 rounds after a
 * warm-up round, every operation measured in each round in turn. Not part of the harness's table: a probe for the
 * "Where the time goes" notes of benchmarks/RESULTS.md.
 *
 * <p>Usage: {@code H2FenceCostProbe [iterations per round, default 10000]}.
 */
public final class H2FenceCostProbe {

	private interface Op {

		void run() throws SQLException;

	}

	private record Measured(String name, boolean bindOnce, Op op) {
	}

	private H2FenceCostProbe() {
	}

	/**
	 * @param args optional iterations per round
	 * @throws SQLException on a database error
	 */
	public static void main(String[] args) throws SQLException {
		int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
		JdbcDataSource ds = new JdbcDataSource();
		ds.setURL("jdbc:h2:mem:fence-cost-probe;DB_CLOSE_DELAY=-1");
		ShardTenancyMigrations.migrateShard(ds, "probe", List.of());
		H2FenceDialect dialect = new H2FenceDialect();
		UUID order = UUID.randomUUID();
		try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
			for (String side : List.of("plain", "fenced")) {
				s.execute("CREATE TABLE " + side + "_order (id UUID PRIMARY KEY, tenant_id VARCHAR(64) NOT NULL, "
						+ "total BIGINT, revision INT)");
				s.execute("CREATE TABLE " + side + "_line (id BIGINT AUTO_INCREMENT PRIMARY KEY, order_id UUID, "
						+ "tenant_id VARCHAR(64) NOT NULL, amount BIGINT)");
			}
			for (String table : List.of("fenced_order", "fenced_line")) {
				dialect.installWriteCheck(c, table, "tenant_id");
				dialect.installChangeCapture(c, table, "tenant_id");
			}
			s.execute("INSERT INTO shard_fence (tenant_id, state, min_version, updated_at) "
					+ "VALUES ('t1', 'OWNED', 1, CURRENT_TIMESTAMP)");
			s.execute("INSERT INTO plain_order VALUES ('" + order + "', 't1', 0, 0)");
			dialect.begin(c, "t1", 5);
			s.execute("INSERT INTO fenced_order VALUES ('" + order + "', 't1', 0, 0)");
			dialect.end(c);
			c.setAutoCommit(false);

			Op plain = transaction(c, "plain", order);
			Op fenced = transaction(c, "fenced", order);
			List<Measured> ops = List.of(new Measured("plain transaction (3 statements + commit)", false, plain),
					new Measured("library transaction (begin + 3 statements + commit + end)", false, () -> {
						dialect.begin(c, "t1", 5);
						fenced.run();
						dialect.end(c);
					}), new Measured("fenced statements + commit (variables bound once)", true, fenced),
					new Measured("begin + commit", false, () -> {
						dialect.begin(c, "t1", 5);
						c.commit();
					}), new Measured("end + commit", false, () -> {
						dialect.end(c);
						c.commit();
					}), new Measured("commit alone", false, c::commit));
			ThreadMXBean mx = ManagementFactory.getThreadMXBean();
			Map<String, Double> best = new LinkedHashMap<>();
			for (int round = 0; round < 8; round++) {
				for (Measured op : ops) {
					if (op.bindOnce()) {
						dialect.begin(c, "t1", 5);
					}
					long start = mx.getCurrentThreadCpuTime();
					for (int i = 0; i < iterations; i++) {
						op.op().run();
					}
					double micros = (mx.getCurrentThreadCpuTime() - start) / 1e3 / iterations;
					if (round > 0) {
						best.merge(op.name(), micros, Math::min);
					}
				}
			}
			dialect.end(c);
			c.commit();
			best.forEach((name, micros) -> System.out.printf("%-60s %7.2f us%n", name, micros));
		}
	}

	private static Op transaction(Connection c, String side, UUID order) {
		return () -> {
			try (PreparedStatement ps = c.prepareStatement(
					"SELECT id, tenant_id, total, revision FROM " + side + "_order WHERE id = ? AND tenant_id = ?")) {
				ps.setObject(1, order);
				ps.setString(2, "t1");
				try (ResultSet rs = ps.executeQuery()) {
					rs.next();
				}
			}
			try (PreparedStatement ps = c
				.prepareStatement("INSERT INTO " + side + "_line (order_id, tenant_id, amount) VALUES (?, ?, 1)")) {
				ps.setObject(1, order);
				ps.setString(2, "t1");
				ps.executeUpdate();
			}
			try (PreparedStatement ps = c.prepareStatement("UPDATE " + side
					+ "_order SET total = total + 1, revision = revision + 1 WHERE id = ? AND tenant_id = ?")) {
				ps.setObject(1, order);
				ps.setString(2, "t1");
				ps.executeUpdate();
			}
			c.commit();
		};
	}

}
