package io.github.shardtenancy.testing.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;

/**
 * Writers of an application whose tenant table {@code item (tenant_id, id, qty)} has a trigger of the application
 * that writes an audit row into a second tenant table, {@code item_audit (tenant_id, id, item_id, op)}, for every
 * insert, update and delete: real threads writing through the tenancy's routing {@code DataSource} (retried while the
 * fence rejects them, as a move's freeze does), each recording what it committed, so that a test can say how many
 * audit rows of each item and operation the application's own writes produced. The schema and the trigger are the
 * test's (database-specific).
 */
public final class AuditedItems {

	private final ShardTenancy tenancy;

	/** Per tenant: "itemId/op" -> how many audit rows the committed writes produced. */
	private final Map<String, Map<String, Integer>> expected = new ConcurrentHashMap<>();

	private final AtomicBoolean running = new AtomicBoolean();

	private final AtomicInteger writes = new AtomicInteger();

	private final List<Future<?>> futures = new ArrayList<>();

	private ExecutorService threads;

	/** @param tenancy the started tenancy whose routing {@code DataSource} the writers use */
	public AuditedItems(ShardTenancy tenancy) {
		this.tenancy = tenancy;
	}

	/**
	 * Inserts items of a tenant, one transaction each.
	 * @param tenant the tenant
	 * @param firstId the first item id
	 * @param count how many
	 */
	public void insert(String tenant, long firstId, int count) {
		for (long id = firstId; id < firstId + count; id++) {
			write(tenant, "INSERT", id);
		}
	}

	/**
	 * Starts writers: each inserts new items (ids from {@code firstId + writer * 1_000_000}) and updates and deletes
	 * items of {@code [firstId, firstId + existing)} and its own, about 200 writes a second each.
	 * @param tenant the tenant
	 * @param writers how many threads
	 * @param firstId the first id of the tenant's existing items
	 * @param existing how many items exist
	 */
	public void start(String tenant, int writers, long firstId, int existing) {
		if (this.threads == null) {
			this.threads = Executors.newCachedThreadPool();
			this.running.set(true);
		}
		for (int w = 0; w < writers; w++) {
			long own = firstId + (w + 1) * 1_000_000L;
			this.futures.add(this.threads.submit(() -> {
				ThreadLocalRandom random = ThreadLocalRandom.current();
				long next = own;
				while (this.running.get()) {
					int op = random.nextInt(10);
					long id = random.nextBoolean() || next == own ? firstId + random.nextInt(existing)
							: own + random.nextLong(next - own);
					if (op < 4) {
						write(tenant, "INSERT", next++);
					}
					else if (op < 8) {
						write(tenant, "UPDATE", id);
					}
					else {
						write(tenant, "DELETE", id);
					}
					this.writes.incrementAndGet();
					Thread.sleep(5);
				}
				return null;
			}));
		}
	}

	/**
	 * Waits until the writers have committed (or found nothing to change) {@code more} writes from now.
	 * @param more how many writes
	 * @throws InterruptedException if interrupted
	 */
	public void awaitWrites(int more) throws InterruptedException {
		int until = this.writes.get() + more;
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (this.writes.get() < until && System.nanoTime() < deadline) {
			Thread.sleep(10);
		}
	}

	/**
	 * Stops the writers and waits for them; rethrows what a writer failed with.
	 * @throws Exception what a writer threw
	 */
	public void stop() throws Exception {
		this.running.set(false);
		try {
			for (Future<?> future : this.futures) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			if (this.threads != null) {
				this.threads.shutdownNow();
			}
		}
	}

	/**
	 * @param tenant the tenant
	 * @return "itemId/op" -> how many audit rows the application's committed writes produced, sorted
	 */
	public Map<String, Integer> expectedAudit(String tenant) {
		return new TreeMap<>(this.expected.getOrDefault(tenant, Map.of()));
	}

	/**
	 * @param shard a shard
	 * @param tenant the tenant
	 * @return "itemId/op" -> the audit rows of the tenant on the shard, sorted
	 * @throws SQLException on a database error
	 */
	public static Map<String, Integer> audit(DataSource shard, String tenant) throws SQLException {
		Map<String, Integer> rows = new TreeMap<>();
		try (Connection c = shard.getConnection(); PreparedStatement ps = c.prepareStatement(
				"SELECT item_id, op, COUNT(*) FROM item_audit WHERE tenant_id = ? GROUP BY item_id, op")) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					rows.put(rs.getLong(1) + "/" + rs.getString(2), rs.getInt(3));
				}
			}
		}
		return rows;
	}

	/**
	 * @param shard a shard
	 * @param tenant the tenant
	 * @return the tenant's rows on the shard in {@code item} and {@code item_audit} together
	 * @throws SQLException on a database error
	 */
	public static long rows(DataSource shard, String tenant) throws SQLException {
		try (Connection c = shard.getConnection(); PreparedStatement ps = c.prepareStatement(
				"SELECT (SELECT COUNT(*) FROM item WHERE tenant_id = ?) + (SELECT COUNT(*) FROM item_audit "
						+ "WHERE tenant_id = ?)")) {
			ps.setString(1, tenant);
			ps.setString(2, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	/**
	 * One write of the tenant in a transaction of its own, again while the fence rejects it (40001); records the
	 * audit row the application's trigger wrote with it when it changed a row.
	 */
	private void write(String tenant, String op, long id) {
		String sql = switch (op) {
			case "INSERT" -> "INSERT INTO item (tenant_id, id, qty) VALUES (?, ?, 1)";
			case "UPDATE" -> "UPDATE item SET qty = qty + 1 WHERE tenant_id = ? AND id = ?";
			default -> "DELETE FROM item WHERE tenant_id = ? AND id = ?";
		};
		for (int attempt = 0;; attempt++) {
			try (TenantContext.Scope scope = TenantContext.bind(tenant);
					Connection c = this.tenancy.dataSource().getConnection()) {
				c.setAutoCommit(false);
				int changed;
				try (PreparedStatement ps = c.prepareStatement(sql)) {
					ps.setString(1, tenant);
					ps.setLong(2, id);
					changed = ps.executeUpdate();
				}
				c.commit();
				if (changed == 1) {
					this.expected.computeIfAbsent(tenant, t -> new ConcurrentHashMap<>()).merge(id + "/" + op, 1,
							Integer::sum);
				}
				return;
			}
			catch (SQLException ex) {
				if (!"40001".equals(ex.getSQLState()) || attempt > 5_000) {
					throw new IllegalStateException(op + " of item " + id + " of " + tenant, ex);
				}
				try {
					Thread.sleep(2);
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(interrupted);
				}
			}
		}
	}

}
