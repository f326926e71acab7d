package io.github.shardtenancy.benchmarks;

import static io.github.shardtenancy.benchmarks.ResultsTable.fmt;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Figure 5, memory and cold start: fills a PostgreSQL directory with N entries, then runs {@link MemoryProbe} (in a
 * forked JVM with the serial collector for a clean, exact heap count, or in this JVM for the smoke run).
 */
final class MemoryFigure {

	private MemoryFigure() {
	}

	static List<Figure> run(BenchPostgres pg, Sizes sizes) throws Exception {
		String url = pg.createDatabase("bench_memory");
		ShardTenancyMigrations.migrateDirectory(new DriverManagerDataSource(url, pg.user(), pg.password()));
		int n = sizes.directoryEntries();
		try (Connection c = DriverManager.getConnection(url, pg.user(), pg.password())) {
			try (PreparedStatement ps = c.prepareStatement("INSERT INTO shard_directory_entry (tenant_id, shard_id, "
					+ "state, target_shard_id, epoch, version, updated_at, updated_by) SELECT 'tenant-' || g, "
					+ "'shard-' || (g % 8 + 1), 'ACTIVE', NULL, 1, g, CURRENT_TIMESTAMP, 'benchmarks' "
					+ "FROM generate_series(1, ?) g")) {
				ps.setInt(1, n);
				ps.executeUpdate();
			}
			try (PreparedStatement ps = c.prepareStatement("UPDATE shard_directory_version SET version = ? WHERE id = 1")) {
				ps.setLong(1, n);
				ps.executeUpdate();
			}
			try (java.sql.Statement st = c.createStatement()) {
				st.execute("VACUUM ANALYZE shard_directory_entry");
			}
		}
		Map<String, Long> m = sizes.forkMemoryProbe() ? fork(url, pg) : MemoryProbe.measure(url, pg.user(),
				pg.password());
		double routerPerEntry = (double) m.get("routerRetainedBytes") / m.get("routerEntries");
		double mapPerEntry = (double) m.get("mapRetainedBytes") / m.get("mapEntries");
		double routerLoad = m.get("routerLoadNanos") / 1e9;
		double rawLoad = m.get("rawLoadNanos") / 1e9;
		String entries = n >= 1_000_000 ? (n / 1_000_000) + "M" : Integer.toString(n);
		Figure memory = new Figure("retained heap per cached entry, " + entries + " entries",
				fmt("%.0f B (ConcurrentHashMap<String, DirectoryEntry>)", mapPerEntry),
				fmt("%.0f B (TenantRouter cache)", routerPerEntry), routerPerEntry / mapPerEntry,
				"<= 100 B (absolute)", Figure.verdict(routerPerEntry <= 100),
				routerPerEntry <= 100 ? ""
						: "where the bytes go (compressed oops): the key String ~56 B (shared with the entry), the "
								+ "DirectoryEntry record 48 B (its shard id is shared: the directory's row mapping "
								+ "keeps one String per shard id), Caffeine's bounded cache ~72 B (its node ~32 B, "
								+ "the ConcurrentHashMap node 32 B and table slot ~8 B). Any map with a String key "
								+ "and a node per entry costs ~96 B before the value (key 56 + node 32 + slot 8), so "
								+ "100 B cannot be reached while the cache is keyed by the tenant id String; without "
								+ "the maximum-entries bound (an unbounded Caffeine cache) it would be ~144 B.");
		Figure coldStart = new Figure("cold start: load " + entries + " entries from a PostgreSQL directory",
				fmt("%.2f s (plain JDBC stream of the rows)", rawLoad), fmt("%.2f s (TenantRouter.loadSnapshot)",
						routerLoad),
				routerLoad / rawLoad, "<= 3 s (absolute)", Figure.verdict(routerLoad <= 3.0), "");
		return List.of(memory, coldStart);
	}

	private static Map<String, Long> fork(String url, BenchPostgres pg) throws Exception {
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		ProcessBuilder builder = new ProcessBuilder(java, "-Xmx2g", "-XX:+UseSerialGC", "-cp",
				System.getProperty("java.class.path"), MemoryProbe.class.getName(), url, pg.user(), pg.password());
		builder.redirectErrorStream(true);
		Process process = builder.start();
		Map<String, Long> values = new HashMap<>();
		StringBuilder output = new StringBuilder();
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				output.append(line).append('\n');
				int eq = line.indexOf('=');
				if (eq > 0 && line.substring(eq + 1).matches("-?\\d+")) {
					values.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1)));
				}
			}
		}
		int exit = process.waitFor();
		if (exit != 0 || !values.containsKey("mapRetainedBytes")) {
			throw new IllegalStateException("The memory probe failed (exit " + exit + "):\n" + output);
		}
		return values;
	}

}
