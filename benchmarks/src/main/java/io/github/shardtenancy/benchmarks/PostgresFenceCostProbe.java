package io.github.shardtenancy.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.postgresql.PostgresFenceDialect;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Where the PostgreSQL fence's server CPU goes, below Hibernate and Spring: the transaction of figure 1 (read an
 * order, insert a line, update the order, commit) as plain JDBC on one embedded PostgreSQL connection (the harness's
 * server settings, {@link BenchPostgres}), connected as the application role, on tables without triggers (plain) and
 * on tables with the fence's write check and change capture installed (fenced). The fence's begin statement is sent
 * the way the library sends it: {@code begin; SELECT ...} as one prepared statement, in the flight of the first query.
 * Between the two, steps that add one part of the begin at a time (an extra statement in the flight, an empty
 * PL/pgSQL call, the advisory try-lock, the fence row's read, the variables) tell the parts' costs apart. Prints, per
 * variant, the server backend's CPU time per transaction (first field of {@code /proc/<pid>/schedstat}, see
 * https://docs.kernel.org/scheduler/sched-stats.html) and the client thread's, in microseconds: medians over rounds
 * after a warm-up round, every variant measured in each round in turn, with the minimum and maximum. Linux only. Not
 * part of the harness's table: a probe for the notes of benchmarks/RESULTS.md.
 *
 * <p>Usage: {@code PostgresFenceCostProbe [iterations per round, default 3000] [rounds, default 7]}.
 */
public final class PostgresFenceCostProbe {

	private record Variant(String name, String prefix, String side) {
	}

	private PostgresFenceCostProbe() {
	}

	/**
	 * @param args optional iterations per round and rounds
	 * @throws SQLException on a database error
	 * @throws IOException if {@code /proc} cannot be read
	 */
	public static void main(String[] args) throws SQLException, IOException {
		int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
		int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
		try (BenchPostgres pg = BenchPostgres.start()) {
			String url = pg.createAppDatabase("fence_probe");
			String role = BenchPostgres.APP_ROLE;
			ShardTenancyMigrations.migrateShard(new DriverManagerDataSource(url, role, role), "probe", List.of());
			PostgresFenceDialect dialect = new PostgresFenceDialect();
			UUID order = UUID.randomUUID();
			try (Connection c = DriverManager.getConnection(url, role, role); Statement s = c.createStatement()) {
				for (String side : List.of("plain", "fenced")) {
					s.execute("CREATE TABLE " + side + "_order (id uuid PRIMARY KEY, tenant_id varchar(64) NOT NULL, "
							+ "revision int NOT NULL, total bigint NOT NULL)");
					s.execute("CREATE TABLE " + side + "_line (id uuid PRIMARY KEY, tenant_id varchar(64) NOT NULL, "
							+ "order_id uuid NOT NULL, amount bigint NOT NULL)");
					s.execute("CREATE INDEX " + side + "_line_order ON " + side + "_line (order_id)");
				}
				for (String table : List.of("fenced_order", "fenced_line")) {
					dialect.installWriteCheck(c, table, "tenant_id", false);
					dialect.installChangeCapture(c, table, "tenant_id");
				}
				// The steps of the breakdown: each adds one part of shard_fence_begin to the one before.
				s.execute("CREATE FUNCTION probe_noop(p_tenant text, p_version bigint) RETURNS void LANGUAGE plpgsql "
						+ "AS $$ BEGIN END $$");
				s.execute("CREATE FUNCTION probe_lock(p_tenant text, p_version bigint) RETURNS void LANGUAGE plpgsql "
						+ "AS $$ BEGIN IF NOT pg_try_advisory_xact_lock_shared(1936225382, hashtext(p_tenant)) THEN "
						+ "RAISE EXCEPTION 'frozen'; END IF; END $$");
				s.execute("CREATE FUNCTION probe_lock_read(p_tenant text, p_version bigint) RETURNS void "
						+ "LANGUAGE plpgsql AS $$ DECLARE v_state text; v_min bigint; v_capture boolean; BEGIN "
						+ "IF NOT pg_try_advisory_xact_lock_shared(1936225382, hashtext(p_tenant)) THEN "
						+ "RAISE EXCEPTION 'frozen'; END IF; "
						+ "SELECT f.state, f.min_version, c.tenant_id IS NOT NULL INTO v_state, v_min, v_capture "
						+ "FROM shard_fence f LEFT JOIN shard_capture c ON c.tenant_id = f.tenant_id "
						+ "WHERE f.tenant_id = p_tenant; END $$");
				s.execute("CREATE FUNCTION probe_lock_read_set(p_tenant text, p_version bigint) RETURNS void "
						+ "LANGUAGE plpgsql AS $$ DECLARE v_state text; v_min bigint; v_capture boolean; BEGIN "
						+ "IF NOT pg_try_advisory_xact_lock_shared(1936225382, hashtext(p_tenant)) THEN "
						+ "RAISE EXCEPTION 'frozen'; END IF; "
						+ "SELECT f.state, f.min_version, c.tenant_id IS NOT NULL INTO v_state, v_min, v_capture "
						+ "FROM shard_fence f LEFT JOIN shard_capture c ON c.tenant_id = f.tenant_id "
						+ "WHERE f.tenant_id = p_tenant; "
						+ "PERFORM set_config('shard_tenancy.tenant', p_tenant, true), "
						+ "set_config('shard_tenancy.version', p_version::text, true), "
						+ "set_config('shard_tenancy.fenced', p_tenant, true); END $$");
			}
			try (Connection admin = DriverManager.getConnection(url, pg.user(), pg.password());
					Statement s = admin.createStatement()) {
				s.execute("INSERT INTO shard_fence (tenant_id, state, min_version, updated_at) "
						+ "VALUES ('t1', 'OWNED', 1, now())");
				dialect.beginMover(admin, "t1");
				for (String side : List.of("plain", "fenced")) {
					s.execute("INSERT INTO " + side + "_order VALUES ('" + order + "', 't1', 0, 0)");
				}
				admin.commit();
			}
			List<Variant> variants = List.of(new Variant("plain", null, "plain"),
					new Variant("plain + SELECT 1 in the flight", "SELECT 1", "plain"),
					new Variant("plain + empty PL/pgSQL call", "SELECT probe_noop(?, ?)", "plain"),
					new Variant("plain + try-lock", "SELECT probe_lock(?, ?)", "plain"),
					new Variant("plain + try-lock + fence read", "SELECT probe_lock_read(?, ?)", "plain"),
					new Variant("plain + try-lock + fence read + 3 set_config",
							"SELECT probe_lock_read_set(?, ?)", "plain"),
					new Variant("plain + shard_fence_begin", dialect.beginStatement(), "plain"),
					new Variant("fenced tables, variables set by probe_lock_read_set",
							"SELECT probe_lock_read_set(?, ?)", "fenced"),
					new Variant("fenced (library: shard_fence_begin + row triggers)", dialect.beginStatement(),
							"fenced"));
			Map<String, List<double[]>> measured = new LinkedHashMap<>();
			try (Connection c = DriverManager.getConnection(url, BenchPostgres.APP_ROLE, BenchPostgres.APP_ROLE)) {
				c.setAutoCommit(false);
				int pid;
				try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
					rs.next();
					pid = rs.getInt(1);
				}
				c.commit();
				ThreadMXBean mx = ManagementFactory.getThreadMXBean();
				for (int round = 0; round <= rounds; round++) {
					for (Variant variant : variants) {
						long server = schedstat(pid);
						long client = mx.getCurrentThreadCpuTime();
						for (int i = 0; i < iterations; i++) {
							transaction(c, variant, order);
						}
						double clientMicros = (mx.getCurrentThreadCpuTime() - client) / 1e3 / iterations;
						double serverMicros = (schedstat(pid) - server) / 1e3 / iterations;
						if (round > 0) {
							measured.computeIfAbsent(variant.name(), (k) -> new ArrayList<>())
								.add(new double[] { serverMicros, clientMicros });
						}
					}
				}
			}
			System.out.printf(Locale.ROOT, "%-58s %26s %26s%n", "variant (us per transaction)", "server median (min-max)",
					"client median (min-max)");
			measured.forEach((name, values) -> System.out.printf(Locale.ROOT, "%-58s %26s %26s%n", name,
					spread(values, 0), spread(values, 1)));
		}
	}

	private static String spread(List<double[]> values, int index) {
		Spread spread = Spread.of(values.stream().mapToDouble((v) -> v[index]).toArray());
		return String.format(Locale.ROOT, "%.1f (%.1f-%.1f)", spread.median(), spread.min(), spread.max());
	}

	private static void transaction(Connection c, Variant variant, UUID order) throws SQLException {
		String select = "SELECT id, tenant_id, revision, total FROM " + variant.side()
				+ "_order WHERE id = ? AND tenant_id = ?";
		boolean prefixed = variant.prefix() != null;
		boolean parameters = prefixed && variant.prefix().contains("?");
		try (PreparedStatement ps = c.prepareStatement(prefixed ? variant.prefix() + ";\n" + select : select)) {
			int i = 1;
			if (parameters) {
				ps.setString(i++, "t1");
				ps.setLong(i++, 5);
			}
			ps.setObject(i++, order);
			ps.setString(i, "t1");
			boolean resultSet = ps.execute();
			if (prefixed) {
				ps.getMoreResults();
			}
			else if (!resultSet) {
				throw new IllegalStateException("no result set");
			}
			try (ResultSet rs = ps.getResultSet()) {
				if (!rs.next()) {
					throw new IllegalStateException("no order");
				}
			}
		}
		try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + variant.side()
				+ "_line (id, tenant_id, order_id, amount) VALUES (?, ?, ?, 1)")) {
			ps.setObject(1, UUID.randomUUID());
			ps.setString(2, "t1");
			ps.setObject(3, order);
			ps.executeUpdate();
		}
		try (PreparedStatement ps = c.prepareStatement("UPDATE " + variant.side()
				+ "_order SET total = total + 1, revision = revision + 1 WHERE id = ? AND tenant_id = ?")) {
			ps.setObject(1, order);
			ps.setString(2, "t1");
			ps.executeUpdate();
		}
		c.commit();
	}

	private static long schedstat(int pid) throws IOException {
		String schedstat = Files.readString(Path.of("/proc/" + pid + "/schedstat"));
		return Long.parseLong(schedstat.substring(0, schedstat.indexOf(' ')));
	}

}
