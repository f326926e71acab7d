package io.github.shardtenancy.benchmarks;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.internal.routing.Router;
import org.openjdk.jol.info.GraphLayout;

/**
 * Figure 5's measurement, meant to run in a JVM of its own (a clean heap): the cold-start load of a PostgreSQL
 * directory into a {@link Router} ({@link Router#loadSnapshot()}), timed against streaming the same rows
 * with plain JDBC (the same fetch size), and against the same stream keeping the rows in a map
 * ({@link #COLD_START_ROUNDS} rounds of the three, the order rotating), and the retained heap of the router's cache
 * per entry, against a plain
 * {@code ConcurrentHashMap<String, DirectoryEntry>} of the same rows.
 *
 * <p>Retained heap = heap used after full GCs with the structure alive, minus heap used after full GCs before it was
 * built; the tenant id strings (the keys) are counted, since the cache holds them. The router is measured twice: after
 * the cold-start load, and after a second snapshot replaced every cached entry by a copy read anew (as a watcher's
 * resync does, and as a sync replaces a changed entry). Both states are also broken down by class with JOL
 * ({@link #breakdown(Router, String)}).
 *
 * <p>Usage: {@code MemoryProbe <jdbc-url> <user> <password>}; prints {@code key=value} lines.
 */
public final class MemoryProbe {

	/** Timed rounds of the cold start, each one of every {@link #SIDES side}. */
	static final int COLD_START_ROUNDS = 6;

	/**
	 * The sides of a cold-start round: the plain JDBC stream that builds each row's {@link DirectoryEntry} and keeps
	 * none (the figure's baseline), the router's load, and the plain stream keeping every entry in a
	 * {@code ConcurrentHashMap<String, DirectoryEntry>} (what keeping the rows costs by itself).
	 */
	static final String[] SIDES = { "raw", "router", "map" };

	private MemoryProbe() {
	}

	public static void main(String[] args) throws Exception {
		measure(args[0], args[1], args[2]).forEach((k, v) -> System.out.println(k + "=" + v));
	}

	static Map<String, Long> measure(String url, String user, String password) throws Exception {
		Map<String, Long> out = new LinkedHashMap<>();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername(user);
		config.setPassword(password);
		config.setMaximumPoolSize(2);
		config.setPoolName("bench-memory-probe");
		try (HikariDataSource pool = new HikariDataSource(config)) {
			Directory directory = new Directory(pool);
			// Warm the driver, the JIT and PostgreSQL's buffers on both paths once, untimed.
			rawRead(pool, null);
			new Router(directory, RouterSettings.defaults()).loadSnapshot();

			// Cold start: rounds of the plain stream, the router's load and a plain stream kept in a ConcurrentHashMap,
			// the order rotating from round to round. Besides wall clock, each side's process CPU time (every thread:
			// the reader, the router's applying thread, the collector, the JIT) and collector time are recorded.
			long rows = 0;
			for (int round = 0; round < COLD_START_ROUNDS; round++) {
				for (int step = 0; step < SIDES.length; step++) {
					String side = SIDES[(step + round) % SIDES.length];
					usedAfterGc(); // each side starts on a collected heap, with no garbage of the other
					long gcBefore = gcMillis();
					long cpuBefore = processCpuNanos();
					long start = System.nanoTime();
					Object kept = null;
					switch (side) {
						case "raw" -> rows = rawRead(pool, null);
						case "router" -> {
							Router loaded = new Router(directory, RouterSettings.defaults());
							loaded.loadSnapshot();
							kept = loaded;
						}
						default -> {
							Map<String, DirectoryEntry> map = new ConcurrentHashMap<>();
							rawRead(pool, entry -> map.put(entry.tenantId(), entry));
							kept = map;
						}
					}
					out.put(side + "LoadNanos." + round, System.nanoTime() - start);
					out.put(side + "LoadCpuNanos." + round, processCpuNanos() - cpuBefore);
					out.put(side + "LoadGcMillis." + round, gcMillis() - gcBefore);
					Reference.reachabilityFence(kept);
				}
			}
			out.put("rows", rows);

			long before = usedAfterGc();
			Router router = new Router(directory, RouterSettings.defaults());
			router.loadSnapshot();
			long after = usedAfterGc();
			out.put("routerEntries", router.stats().cachedEntries());
			out.put("routerRetainedBytes", after - before);
			out.putAll(breakdown(router, "breakdown."));

			// A second snapshot, as a watcher's resync after a reconnect loads it: every cached entry is replaced by
			// the copy read anew (with a tenant id String of its own), like an entry a sync brings after a change.
			router.loadSnapshot();
			after = usedAfterGc();
			out.put("routerReloadedEntries", router.stats().cachedEntries());
			out.put("routerReloadedRetainedBytes", after - before);
			out.putAll(breakdown(router, "reloaded."));
			Reference.reachabilityFence(router);
			router = null;

			before = usedAfterGc();
			Map<String, DirectoryEntry> map = new ConcurrentHashMap<>();
			rawRead(pool, entry -> map.put(entry.tenantId(), entry));
			after = usedAfterGc();
			out.put("mapEntries", (long) map.size());
			out.put("mapRetainedBytes", after - before);
			Reference.reachabilityFence(map);
		}
		return out;
	}

	/**
	 * Streams every directory row with plain JDBC into {@code into} (if not {@code null}). The shard id strings are
	 * the driver's own, one per row, as a plain map of the rows holds them.
	 */
	private static long rawRead(HikariDataSource pool, Consumer<DirectoryEntry> into) throws SQLException {
		long rows = 0;
		try (Connection c = pool.getConnection()) {
			c.setAutoCommit(false);
			try (PreparedStatement ps = c.prepareStatement(
					"SELECT tenant_id, shard_id, state, target_shard_id, epoch, version FROM shard_directory_entry")) {
				ps.setFetchSize(Directory.SNAPSHOT_FETCH_SIZE); // the same as the router's snapshot
				try (ResultSet rs = ps.executeQuery()) {
					while (rs.next()) {
						DirectoryEntry entry = new DirectoryEntry(rs.getString(1), rs.getString(2),
								TenantState.valueOf(rs.getString(3)), rs.getString(4), rs.getLong(5), rs.getLong(6));
						if (into != null) {
							into.accept(entry);
						}
						rows++;
					}
				}
			}
			c.commit();
		}
		return rows;
	}

	/**
	 * Counts, with JOL, the objects reachable from the router cache's hash map (its table, nodes, keys and values) and
	 * its frequency sketch, by class, and returns the bytes of each part (keys {@code prefix + part}), plus the number of
	 * {@code String} objects ({@code prefix + "strings"}: keys plus the other strings the entries hold). Reaches into
	 * Caffeine's internals by reflection (benchmark code only); if a Caffeine release renames them, the breakdown is
	 * left out and the figure says so.
	 */
	static Map<String, Long> breakdown(Router router, String prefix) {
		// JDK 17's Unsafe refuses field offsets of records (DirectoryEntry); JOL then computes them itself.
		System.setProperty("jol.magicFieldOffset", "true");
		Map<String, Long> out = new LinkedHashMap<>();
		try {
			Object cache = read(router, "entries");
			Object local = read(cache, "cache");
			Object map = read(local, "data");
			GraphLayout layout = GraphLayout.parseInstance(map);
			long other = layout.totalSize();
			for (Class<?> type : layout.getClasses()) {
				long bytes = layout.getClassSizes().count(type);
				String part;
				if (type == String.class) {
					part = "string";
					out.put(prefix + "strings", layout.getClassCounts().count(type));
				}
				else if (type == byte[].class) {
					part = "stringBytes";
				}
				else if (type == DirectoryEntry.class) {
					part = "entry";
				}
				else if (type.getName().equals("java.util.concurrent.ConcurrentHashMap$Node")) {
					part = "mapNode";
				}
				else if (type.getName().equals("[Ljava.util.concurrent.ConcurrentHashMap$Node;")) {
					part = "mapTable";
				}
				else if (type.getPackageName().equals("com.github.benmanes.caffeine.cache")) {
					part = "cacheNode";
				}
				else {
					continue;
				}
				out.merge(prefix + part, bytes, Long::sum);
				other -= bytes;
			}
			out.put(prefix + "other", other);
			Method sketch = method(local.getClass(), "frequencySketch");
			out.put(prefix + "sketch", GraphLayout.parseInstance(sketch.invoke(local)).totalSize());
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			System.out.println("breakdown unavailable: " + ex);
			return Map.of();
		}
		return out;
	}

	private static Object read(Object target, String name) throws ReflectiveOperationException {
		for (Class<?> type = target.getClass(); type != null; type = type.getSuperclass()) {
			try {
				Field field = type.getDeclaredField(name);
				field.setAccessible(true);
				return field.get(target);
			}
			catch (NoSuchFieldException ex) {
				// look in the superclass
			}
		}
		throw new NoSuchFieldException(name + " in " + target.getClass());
	}

	private static Method method(Class<?> start, String name) throws NoSuchMethodException {
		for (Class<?> type = start; type != null; type = type.getSuperclass()) {
			try {
				Method found = type.getDeclaredMethod(name);
				found.setAccessible(true);
				return found;
			}
			catch (NoSuchMethodException ex) {
				// look in the superclass
			}
		}
		throw new NoSuchMethodException(name + " in " + start);
	}

	/** @return the CPU time of every thread of this JVM so far, in nanoseconds, or -1 if the JVM does not say */
	private static long processCpuNanos() {
		if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
			return os.getProcessCpuTime();
		}
		return -1;
	}

	/** @return the accumulated collection time of every collector, in milliseconds (wall clock of the pauses) */
	private static long gcMillis() {
		long total = 0;
		for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
			total += Math.max(0, collector.getCollectionTime());
		}
		return total;
	}

	private static long usedAfterGc() throws InterruptedException {
		MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
		long used = Long.MAX_VALUE;
		for (int i = 0; i < 4; i++) {
			System.gc();
			Thread.sleep(100);
			used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
		}
		return used;
	}

}
