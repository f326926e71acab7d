package io.github.shardtenancy.testing;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.shardtenancy.fence.FenceRejection;
import io.github.shardtenancy.it.support.AppInstance;

/**
 * One application writer of one tenant on PostgreSQL: inserts orders with lines, updates and deletes its own orders,
 * each in one transaction through an instance's tenant-routing DataSource (routed, fenced). A fence rejection drops
 * the tenant's route and retries the same write, as Spring's retry would; any other failure ends the writer with it.
 * It keeps what it committed, to compare with the shards afterwards.
 */
final class TenantWriter implements Callable<TenantWriter> {

	/** Order ids are unique across the writers of the whole test JVM (the order table's key is the id alone). */
	private static final AtomicInteger WRITERS = new AtomicInteger();

	final String tenantId;

	private final AppInstance app;

	private final AtomicBoolean stop;

	private final Random random;

	/** Committed orders: id to amount. */
	final Map<Long, Integer> orders = new HashMap<>();

	/** Committed lines: id to "order:qty". */
	final Map<String, String> lines = new HashMap<>();

	private final Map<Long, List<String>> linesByOrder = new HashMap<>();

	/** Committed writes. */
	final AtomicLong ops = new AtomicLong();

	/** Fence rejections retried. */
	final AtomicLong rejections = new AtomicLong();

	private long nextOrder;

	TenantWriter(String tenantId, AppInstance app, AtomicBoolean stop) {
		int writer = WRITERS.incrementAndGet();
		this.tenantId = tenantId;
		this.app = app;
		this.stop = stop;
		this.random = new Random(writer * 31L);
		this.nextOrder = writer * 10_000_000L;
	}

	@Override
	public TenantWriter call() throws Exception {
		while (!this.stop.get()) {
			step();
			Thread.sleep(2); // an application, not a load generator starving the mover of CPU
		}
		return this;
	}

	/** Writes {@code count} times (seeding). */
	TenantWriter write(int count) throws Exception {
		for (int i = 0; i < count; i++) {
			step();
		}
		return this;
	}

	private void step() throws Exception {
		int dice = this.random.nextInt(100);
		if (dice < 45 || this.orders.size() < 5) {
			long order = ++this.nextOrder;
			int amount = this.random.nextInt(1000);
			List<String> newLines = new ArrayList<>();
			int count = this.random.nextInt(3);
			for (int i = 0; i < count; i++) {
				newLines.add(UUID.randomUUID().toString());
			}
			int qty = this.random.nextInt(10);
			retrying(c -> {
				try (PreparedStatement ps = c.prepareStatement(
						"INSERT INTO pg_move_order (id, tenant_id, amount, label) VALUES (?, ?, ?, ?)")) {
					ps.setLong(1, order);
					ps.setString(2, this.tenantId);
					ps.setInt(3, amount);
					ps.setString(4, "order " + order);
					ps.executeUpdate();
				}
				for (String line : newLines) {
					try (PreparedStatement ps = c.prepareStatement(
							"INSERT INTO pg_move_line (id, order_id, tenant_id, qty) VALUES (?, ?, ?, ?)")) {
						ps.setObject(1, UUID.fromString(line));
						ps.setLong(2, order);
						ps.setString(3, this.tenantId);
						ps.setInt(4, qty);
						ps.executeUpdate();
					}
				}
				return null;
			});
			this.orders.put(order, amount);
			this.linesByOrder.put(order, newLines);
			newLines.forEach(line -> this.lines.put(line, order + ":" + qty));
		}
		else if (dice < 75) {
			long order = pick();
			int amount = this.random.nextInt(1000);
			retrying(c -> {
				try (PreparedStatement ps = c
					.prepareStatement("UPDATE pg_move_order SET amount = ? WHERE id = ? AND tenant_id = ?")) {
					ps.setInt(1, amount);
					ps.setLong(2, order);
					ps.setString(3, this.tenantId);
					if (ps.executeUpdate() != 1) {
						throw new IllegalStateException("order " + order + " of " + this.tenantId + " is missing");
					}
				}
				return null;
			});
			this.orders.put(order, amount);
		}
		else {
			long order = pick();
			retrying(c -> {
				try (PreparedStatement ps = c
					.prepareStatement("DELETE FROM pg_move_line WHERE order_id = ? AND tenant_id = ?")) {
					ps.setLong(1, order);
					ps.setString(2, this.tenantId);
					ps.executeUpdate();
				}
				try (PreparedStatement ps = c
					.prepareStatement("DELETE FROM pg_move_order WHERE id = ? AND tenant_id = ?")) {
					ps.setLong(1, order);
					ps.setString(2, this.tenantId);
					if (ps.executeUpdate() != 1) {
						throw new IllegalStateException("order " + order + " of " + this.tenantId + " is missing");
					}
				}
				return null;
			});
			this.orders.remove(order);
			this.linesByOrder.remove(order).forEach(this.lines::remove);
		}
		this.ops.incrementAndGet();
	}

	private long pick() {
		List<Long> ids = new ArrayList<>(this.orders.keySet());
		ids.sort(null);
		return ids.get(this.random.nextInt(ids.size()));
	}

	private void retrying(AppInstance.SqlWork<Void> work) throws Exception {
		for (int attempt = 1;; attempt++) {
			try {
				this.app.inTransaction(this.tenantId, work);
				return;
			}
			catch (SQLException ex) {
				if (FenceRejection.find(ex).isEmpty() || attempt > 100_000) {
					throw ex;
				}
				this.rejections.incrementAndGet();
				this.app.router.invalidate(this.tenantId);
				Thread.sleep(1);
			}
		}
	}

	/** @return the committed orders of several writers of one tenant */
	static Map<Long, Integer> orders(List<TenantWriter> writers) {
		Map<Long, Integer> all = new TreeMap<>();
		writers.forEach(w -> all.putAll(w.orders));
		return all;
	}

	/** @return the committed lines of several writers of one tenant */
	static Map<String, String> lines(List<TenantWriter> writers) {
		Map<String, String> all = new TreeMap<>();
		writers.forEach(w -> all.putAll(w.lines));
		return all;
	}

}
