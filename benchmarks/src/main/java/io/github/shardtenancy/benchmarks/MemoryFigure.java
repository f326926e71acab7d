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
		int n = Integer.getInteger("bench.memory.entries", sizes.directoryEntries()); // for a trial run
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
		double[] routerLoads = new double[MemoryProbe.COLD_START_ROUNDS];
		double[] rawLoads = new double[MemoryProbe.COLD_START_ROUNDS];
		double[] loadRatios = new double[MemoryProbe.COLD_START_ROUNDS];
		double[] mapRatios = new double[MemoryProbe.COLD_START_ROUNDS];
		for (int r = 0; r < MemoryProbe.COLD_START_ROUNDS; r++) {
			routerLoads[r] = m.get("routerLoadNanos." + r) / 1e9;
			rawLoads[r] = m.get("rawLoadNanos." + r) / 1e9;
			loadRatios[r] = routerLoads[r] / rawLoads[r];
			mapRatios[r] = routerLoads[r] / (m.get("mapLoadNanos." + r) / 1e9);
		}
		Spread loadRatio = Spread.of(loadRatios);
		double routerLoad = Spread.of(routerLoads).median();
		double rawLoad = Spread.of(rawLoads).median();
		String entries = n >= 1_000_000 ? (n / 1_000_000) + "M" : Integer.toString(n);
		Figure memory = new Figure("retained heap per cached entry, " + entries + " entries",
				fmt("%.0f B (ConcurrentHashMap<String, DirectoryEntry>)", mapPerEntry),
				fmt("%.0f B (TenantRouter cache)", routerPerEntry), routerPerEntry / mapPerEntry,
				"<= 100 B (absolute)", Figure.verdict(routerPerEntry <= 100), breakdownNote(m, routerPerEntry));
		Figure coldStart = new Figure("cold start: load " + entries + " entries from a PostgreSQL directory",
				fmt("%.2f s (plain JDBC stream of the rows)", rawLoad), fmt("%.2f s (TenantRouter.loadSnapshot)",
						routerLoad),
				loadRatio.median(), "<= 1.20", Figure.verdict(loadRatio.median() <= 1.2),
				"ratio per round " + loadRatio.describe("%.2f") + "; the plain stream, the router load and the plain "
						+ "stream kept in a map take turns going first, all with the snapshot's fetch size, each on a "
						+ "collected heap. " + coldStartNote(m, Spread.of(mapRatios)));
		return List.of(memory, coldStart);
	}

	/**
	 * Where the router's bytes go, per entry, from {@link MemoryProbe#breakdown} (JOL's count of the objects the
	 * cache's hash map and frequency sketch reach), the retained heap after a second snapshot replaced every entry,
	 * and the floor that the parts no value can remove add up to.
	 */
	static String breakdownNote(Map<String, Long> m, double routerPerEntry) {
		double n = m.get("routerEntries");
		String reloaded = "";
		if (m.containsKey("routerReloadedRetainedBytes")) {
			reloaded = fmt(" After a second snapshot replaced every entry (a watcher's resync; a sync replaces a "
					+ "changed entry the same way): retained heap %.1f B per entry",
					m.get("routerReloadedRetainedBytes") / n);
			if (m.containsKey("reloaded.strings")) {
				reloaded += fmt(", by JOL %.1f B with %d String objects besides the keys (an entry that kept a tenant "
						+ "id String of its own next to its key would add one per entry)", total(m, "reloaded.") / n,
						m.get("reloaded.strings") - (long) n);
			}
			reloaded += ".";
		}
		if (!m.containsKey("breakdown.entry")) {
			return "breakdown not available (see the probe's output)." + reloaded;
		}
		double key = (m.get("breakdown.string") + m.get("breakdown.stringBytes")) / n;
		double mapNode = m.get("breakdown.mapNode") / n;
		double slot = m.get("breakdown.mapTable") / n;
		double cacheNode = m.getOrDefault("breakdown.cacheNode", 0L) / n;
		double entry = m.get("breakdown.entry") / n;
		double sketch = m.get("breakdown.sketch") / n;
		double other = m.get("breakdown.other") / n;
		long sharedStrings = m.get("breakdown.strings") - (long) n;
		double floor = key + mapNode + slot + cacheNode;
		return fmt("where the bytes go, per entry (counted with JOL on the loaded cache, compressed oops): the tenant id "
				+ "String %.1f B with its byte[] (the cache key, the same instance as the entry's tenantId), the "
				+ "ConcurrentHashMap node %.1f B and its table slot %.1f B, Caffeine's node %.1f B (a bounded cache's "
				+ "node: key, value, access-order links), the DirectoryEntry record %.1f B, %d other String(s) for "
				+ "all entries (shared instances: the shard ids, the state's name), the frequency sketch %.1f B "
				+ "(Caffeine allocates it only once the cache holds half its maximum size, then 8 B per entry of the "
				+ "maximum), "
				+ "other %.1f B; total %.1f B (retained heap %.1f B).", key, mapNode, slot, cacheNode, entry,
				sharedStrings, sketch, other, total(m, "breakdown.") / n, routerPerEntry)
				+ reloaded
				+ fmt(" The floor with String keys in a bounded Caffeine cache is key + map node + slot + Caffeine node "
						+ "= %.0f B before any value, and the smallest Java object is 16 B, so <= 100 B cannot be "
						+ "reached while the cache is keyed by the tenant id String; an unbounded Caffeine cache has no "
						+ "node of its own (%.0f B less).", floor, cacheNode);
	}

	/**
	 * Where a cold start's time goes, from {@link MemoryProbe}'s per-side process CPU and collector times (medians over
	 * the rounds): what keeping the rows costs by itself (the plain stream kept in a {@code ConcurrentHashMap}) against
	 * what the router costs beyond that.
	 */
	static String coldStartNote(Map<String, Long> m, Spread mapRatio) {
		StringBuilder note = new StringBuilder(fmt("Against the plain stream keeping every entry in a "
				+ "ConcurrentHashMap<String, DirectoryEntry> (the cost of keeping the rows at all) the router's load is "
				+ "%s. Median per side, process CPU (all threads: reader, the router's applying thread, collector, JIT; "
				+ "not the database) / collector pauses / wall clock:", mapRatio.describe("%.2f")));
		for (String side : MemoryProbe.SIDES) {
			double[] cpu = new double[MemoryProbe.COLD_START_ROUNDS];
			double[] gc = new double[MemoryProbe.COLD_START_ROUNDS];
			double[] wall = new double[MemoryProbe.COLD_START_ROUNDS];
			for (int r = 0; r < MemoryProbe.COLD_START_ROUNDS; r++) {
				cpu[r] = m.get(side + "LoadCpuNanos." + r) / 1e6;
				gc[r] = m.get(side + "LoadGcMillis." + r);
				wall[r] = m.get(side + "LoadNanos." + r) / 1e6;
			}
			String name = switch (side) {
				case "raw" -> "plain stream";
				case "router" -> "router load";
				default -> "plain stream kept in a map";
			};
			note.append(fmt(" %s %.0f / %.0f / %.0f ms;", name, Spread.of(cpu).median(), Spread.of(gc).median(),
					Spread.of(wall).median()));
		}
		note.setLength(note.length() - 1);
		return note.append('.').toString();
	}

	private static double total(Map<String, Long> m, String prefix) {
		return m.entrySet().stream().filter((e) -> e.getKey().startsWith(prefix) && !e.getKey().endsWith(".strings"))
			.mapToLong(Map.Entry::getValue).sum();
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
