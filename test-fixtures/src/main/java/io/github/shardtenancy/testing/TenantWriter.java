package io.github.shardtenancy.testing;

import io.github.shardtenancy.retry.FenceRejection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One application writer of one tenant: inserts orders with lines, updates and deletes its own orders, each in one
 * transaction on the tenant's shard (routed, fenced). A fence rejection drops the tenant's route and retries the same
 * write, as Spring's retry would; any other failure ends the writer with it. It keeps what it committed, to compare
 * with the shards afterwards.
 *
 * <p>The tables: an order table {@code (id BIGINT primary key, tenant_id, amount INT, label VARCHAR)} and a line table
 * {@code (id UUID primary key, order_id BIGINT references the order, tenant_id, qty INT)}. Order ids are unique across
 * the writers of the whole JVM.
 *
 * <p>Not thread-safe: one thread runs a writer ({@link #call()} or {@link #write(int)}); read what it committed after
 * that thread is done. {@link #ops()} and {@link #rejections()} may be read by any thread at any time.
 */
public final class TenantWriter implements Callable<TenantWriter> {

	private static final AtomicInteger WRITERS = new AtomicInteger();

	private final String tenantId;

	private final Tables tables;

	private final Transactions transactions;

	private final Consumer<String> dropRoute;

	private final AtomicBoolean stop;

	private final Random random;

	private final Map<Long, Integer> orders = new HashMap<>();

	private final Map<String, String> lines = new HashMap<>();

	private final Map<Long, List<String>> linesByOrder = new HashMap<>();

	private final AtomicLong ops = new AtomicLong();

	private final AtomicLong rejections = new AtomicLong();

	private long nextOrder;

	/**
	 * @param tenantId the tenant written as, not null
	 * @param tables the order and line tables, not null
	 * @param transactions runs one transaction as a tenant on its shard, not null
	 * @param dropRoute drops the tenant's cached route after a fence rejection (e.g. the router's invalidate), not null
	 * @param stop {@link #call()} returns once it is true, not null
	 */
	public TenantWriter(String tenantId, Tables tables, Transactions transactions, Consumer<String> dropRoute,
			AtomicBoolean stop) {
		int writer = WRITERS.incrementAndGet();
		this.tenantId = Objects.requireNonNull(tenantId, "tenantId");
		this.tables = Objects.requireNonNull(tables, "tables");
		this.transactions = Objects.requireNonNull(transactions, "transactions");
		this.dropRoute = Objects.requireNonNull(dropRoute, "dropRoute");
		this.stop = Objects.requireNonNull(stop, "stop");
		this.random = new Random(writer * 31L);
		this.nextOrder = writer * 10_000_000L;
	}

	/** The two tables a writer writes. */
	public record Tables(String orders, String lines) {

		/**
		 * @param orders the order table, not null
		 * @param lines the line table, not null
		 */
		public Tables {
			Objects.requireNonNull(orders, "orders");
			Objects.requireNonNull(lines, "lines");
		}

	}

	/** Work on a routed, fenced connection, inside a transaction. */
	@FunctionalInterface
	public interface Work {

		/**
		 * @param connection the tenant's connection, auto-commit off
		 * @throws SQLException whatever the statements raise
		 */
		void run(Connection connection) throws SQLException;

	}

	/** Runs one transaction of a tenant on the tenant's shard. */
	@FunctionalInterface
	public interface Transactions {

		/**
		 * Runs the work in one transaction and commits it, or rolls it back and rethrows.
		 * @param tenantId the tenant
		 * @param work the statements
		 * @throws SQLException whatever the fence or the work raised
		 */
		void inTransaction(String tenantId, Work work) throws SQLException;

	}

	/**
	 * Writes until the stop flag is set.
	 * @return this writer
	 * @throws Exception the first failure that is not a fence rejection
	 */
	@Override
	public TenantWriter call() throws Exception {
		while (!this.stop.get()) {
			step();
			// pacing, not a wait for a condition: an application, not a load generator starving the mover of CPU
			Thread.sleep(2);
		}
		return this;
	}

	/**
	 * Writes {@code count} times (seeding).
	 * @param count how many writes
	 * @return this writer
	 * @throws Exception the first failure that is not a fence rejection
	 */
	public TenantWriter write(int count) throws Exception {
		for (int i = 0; i < count; i++) {
			step();
		}
		return this;
	}

	/** @return the tenant */
	public String tenantId() {
		return this.tenantId;
	}

	/** @return the orders committed so far: id to amount (a copy) */
	public Map<Long, Integer> orders() {
		return new TreeMap<>(this.orders);
	}

	/** @return the lines committed so far: id to {@code order:qty} (a copy) */
	public Map<String, String> lines() {
		return new TreeMap<>(this.lines);
	}

	/** @return the writes committed so far */
	public long ops() {
		return this.ops.get();
	}

	/** @return the fence rejections retried so far */
	public long rejections() {
		return this.rejections.get();
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
				try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + this.tables.orders()
						+ " (id, tenant_id, amount, label) VALUES (?, ?, ?, ?)")) {
					ps.setLong(1, order);
					ps.setString(2, this.tenantId);
					ps.setInt(3, amount);
					ps.setString(4, "order " + order);
					ps.executeUpdate();
				}
				for (String line : newLines) {
					try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + this.tables.lines()
							+ " (id, order_id, tenant_id, qty) VALUES (?, ?, ?, ?)")) {
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
				try (PreparedStatement ps = c.prepareStatement(
						"UPDATE " + this.tables.orders() + " SET amount = ? WHERE id = ? AND tenant_id = ?")) {
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
				try (PreparedStatement ps = c.prepareStatement(
						"DELETE FROM " + this.tables.lines() + " WHERE order_id = ? AND tenant_id = ?")) {
					ps.setLong(1, order);
					ps.setString(2, this.tenantId);
					ps.executeUpdate();
				}
				try (PreparedStatement ps = c
					.prepareStatement("DELETE FROM " + this.tables.orders() + " WHERE id = ? AND tenant_id = ?")) {
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

	private void retrying(Work work) throws Exception {
		for (int attempt = 1;; attempt++) {
			try {
				this.transactions.inTransaction(this.tenantId, work);
				return;
			}
			catch (SQLException ex) {
				if (FenceRejection.find(ex).isEmpty() || attempt > 100_000) {
					throw ex;
				}
				this.rejections.incrementAndGet();
				this.dropRoute.accept(this.tenantId);
				// pacing, not a wait for a condition: a retry backs off a little, as a retry policy would
				Thread.sleep(1);
			}
		}
	}

	/**
	 * @param writers writers of one tenant, done writing
	 * @return the orders they committed, merged: id to amount
	 */
	public static Map<Long, Integer> committedOrders(List<TenantWriter> writers) {
		Map<Long, Integer> all = new TreeMap<>();
		writers.forEach(w -> all.putAll(w.orders));
		return all;
	}

	/**
	 * @param writers writers of one tenant, done writing
	 * @return the lines they committed, merged: id to {@code order:qty}
	 */
	public static Map<String, String> committedLines(List<TenantWriter> writers) {
		Map<String, String> all = new TreeMap<>();
		writers.forEach(w -> all.putAll(w.lines));
		return all;
	}

}
