package io.github.shardtenancy.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.directory.Directory;
import io.github.shardtenancy.directory.DirectoryEntry;
import io.github.shardtenancy.directory.TenantState;
import io.github.shardtenancy.routing.RouterSettings;
import io.github.shardtenancy.routing.TenantRouter;

/**
 * Figure 5's measurement, meant to run in a JVM of its own (a clean heap): the cold-start load of a PostgreSQL
 * directory into a {@link TenantRouter} ({@link TenantRouter#loadSnapshot()}), timed against streaming the same rows
 * with plain JDBC, and the retained heap of the router's cache per entry, against a plain
 * {@code ConcurrentHashMap<String, DirectoryEntry>} of the same rows.
 *
 * <p>Retained heap = heap used after full GCs with the structure alive, minus heap used after full GCs before it was
 * built; the tenant id strings (the keys) are counted, since the cache holds them.
 *
 * <p>Usage: {@code MemoryProbe <jdbc-url> <user> <password>}; prints {@code key=value} lines.
 */
public final class MemoryProbe {

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
			new TenantRouter(directory, RouterSettings.defaults()).loadSnapshot();

			long start = System.nanoTime();
			long rows = rawRead(pool, null);
			out.put("rawLoadNanos", System.nanoTime() - start);
			out.put("rows", rows);

			long before = usedAfterGc();
			TenantRouter router = new TenantRouter(directory, RouterSettings.defaults());
			start = System.nanoTime();
			router.loadSnapshot();
			out.put("routerLoadNanos", System.nanoTime() - start);
			long after = usedAfterGc();
			out.put("routerEntries", router.stats().cachedEntries());
			out.put("routerRetainedBytes", after - before);
			Reference.reachabilityFence(router);
			router = null;

			before = usedAfterGc();
			Map<String, DirectoryEntry> map = new ConcurrentHashMap<>();
			rawRead(pool, map);
			after = usedAfterGc();
			out.put("mapEntries", (long) map.size());
			out.put("mapRetainedBytes", after - before);
			Reference.reachabilityFence(map);
		}
		return out;
	}

	private static long rawRead(HikariDataSource pool, Map<String, DirectoryEntry> into) throws SQLException {
		long rows = 0;
		try (Connection c = pool.getConnection()) {
			c.setAutoCommit(false);
			try (PreparedStatement ps = c.prepareStatement(
					"SELECT tenant_id, shard_id, state, target_shard_id, epoch, version FROM shard_directory_entry")) {
				ps.setFetchSize(1000);
				try (ResultSet rs = ps.executeQuery()) {
					while (rs.next()) {
						DirectoryEntry entry = new DirectoryEntry(rs.getString(1), rs.getString(2),
								TenantState.valueOf(rs.getString(3)), rs.getString(4), rs.getLong(5), rs.getLong(6));
						if (into != null) {
							into.put(entry.tenantId(), entry);
						}
						rows++;
					}
				}
			}
			c.commit();
		}
		return rows;
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
