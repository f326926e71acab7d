package io.github.shardtenancy.internal.move;

import io.github.shardtenancy.retry.FenceRejection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.shardtenancy.internal.hibernate.ShardMultiTenantConnectionProvider;
import io.github.shardtenancy.internal.routing.Router;

/**
 * One application writer of one tenant: inserts orders with lines, updates and deletes its own orders, each in one
 * transaction on a connection of {@link ShardMultiTenantConnectionProvider}. A fence rejection invalidates the
 * tenant's route and retries the same write (the simple retry loop an application gets from Spring's retry). It
 * keeps the state it committed, to compare with the databases afterwards.
 */
final class TenantWriter implements Callable<TenantWriter> {

	private final String tenantId;

	private final int writerId;

	private final ShardMultiTenantConnectionProvider provider;

	private final Router router;

	private final AtomicBoolean stop;

	private final Random random;

	/** Committed orders: id to amount. */
	final Map<Long, Integer> orders = new HashMap<>();

	/** Committed lines: id to "order:qty". */
	final Map<String, String> lines = new HashMap<>();

	private final Map<Long, List<String>> linesByOrder = new HashMap<>();

	final AtomicLong ops = new AtomicLong();

	final AtomicLong rejections = new AtomicLong();

	private long nextOrder;

	TenantWriter(String tenantId, int writerId, ShardMultiTenantConnectionProvider provider, Router router,
			AtomicBoolean stop) {
		this.tenantId = tenantId;
		this.writerId = writerId;
		this.provider = provider;
		this.router = router;
		this.stop = stop;
		this.random = new Random(writerId * 31L + tenantId.hashCode());
		this.nextOrder = writerId * 10_000_000L;
	}

	@Override
	public TenantWriter call() throws Exception {
		while (!this.stop.get()) {
			step();
			Thread.sleep(1); // pacing, not a wait: an application, not a load generator starving the mover of CPU
		}
		return this;
	}

	/** Writes {@code count} times, for seeding. */
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
						"INSERT INTO customer_order (id, tenant_id, amount, label) VALUES (?, ?, ?, ?)")) {
					ps.setLong(1, order);
					ps.setString(2, this.tenantId);
					ps.setInt(3, amount);
					ps.setString(4, "order " + order);
					ps.executeUpdate();
				}
				for (String line : newLines) {
					try (PreparedStatement ps = c.prepareStatement(
							"INSERT INTO order_line (id, order_id, tenant_id, qty) VALUES (?, ?, ?, ?)")) {
						ps.setObject(1, UUID.fromString(line));
						ps.setLong(2, order);
						ps.setString(3, this.tenantId);
						ps.setInt(4, qty);
						ps.executeUpdate();
					}
				}
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
					.prepareStatement("UPDATE customer_order SET amount = ? WHERE id = ? AND tenant_id = ?")) {
					ps.setInt(1, amount);
					ps.setLong(2, order);
					ps.setString(3, this.tenantId);
					if (ps.executeUpdate() != 1) {
						throw new IllegalStateException("order " + order + " of " + this.tenantId + " is missing");
					}
				}
			});
			this.orders.put(order, amount);
		}
		else {
			long order = pick();
			retrying(c -> {
				try (PreparedStatement ps = c
					.prepareStatement("DELETE FROM order_line WHERE order_id = ? AND tenant_id = ?")) {
					ps.setLong(1, order);
					ps.setString(2, this.tenantId);
					ps.executeUpdate();
				}
				try (PreparedStatement ps = c
					.prepareStatement("DELETE FROM customer_order WHERE id = ? AND tenant_id = ?")) {
					ps.setLong(1, order);
					ps.setString(2, this.tenantId);
					if (ps.executeUpdate() != 1) {
						throw new IllegalStateException("order " + order + " of " + this.tenantId + " is missing");
					}
				}
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

	interface Work {

		void run(Connection connection) throws SQLException;

	}

	private void retrying(Work work) throws Exception {
		for (int attempt = 1;; attempt++) {
			try {
				transaction(work);
				return;
			}
			catch (SQLException ex) {
				if (FenceRejection.find(ex).isEmpty() || attempt > 100_000) {
					throw ex;
				}
				this.rejections.incrementAndGet();
				this.router.invalidate(this.tenantId);
				Thread.sleep(1); // pacing, not a wait for a condition: a retry backs off a little, as a policy would
			}
		}
	}

	private void transaction(Work work) throws SQLException {
		Connection c = this.provider.getConnection(this.tenantId);
		try {
			c.setAutoCommit(false);
			work.run(c);
			c.commit();
		}
		catch (SQLException | RuntimeException ex) {
			try {
				c.rollback();
			}
			catch (SQLException rollback) {
				ex.addSuppressed(rollback);
			}
			throw ex;
		}
		finally {
			c.setAutoCommit(true);
			this.provider.releaseConnection(this.tenantId, c);
		}
	}

	/** Merges the committed state of several writers of one tenant. */
	static Map<Long, Integer> orders(List<TenantWriter> writers) {
		Map<Long, Integer> all = new java.util.TreeMap<>();
		writers.forEach(w -> all.putAll(w.orders));
		return all;
	}

	/** Merges the committed lines of several writers of one tenant. */
	static Map<String, String> lines(List<TenantWriter> writers) {
		Map<String, String> all = new java.util.TreeMap<>();
		writers.forEach(w -> all.putAll(w.lines));
		return all;
	}

}
