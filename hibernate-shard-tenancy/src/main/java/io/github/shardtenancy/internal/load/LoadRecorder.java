package io.github.shardtenancy.internal.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.shardtenancy.TenantLoad;
import io.github.shardtenancy.internal.jdbc.TenantConnection;

/**
 * This instance's traffic per tenant, counted when each tenant connection is released: transactions, rows written,
 * time held. Kept in a Caffeine cache bounded in size (the least recently used tenants are dropped first), each
 * tenant's counters in {@link LongAdder}s of two consecutive windows: the current one and the one before, so the
 * figures cover between one and two windows of the most recent traffic, and a tenant without traffic for two windows
 * reads zero (and ages out of the cache). Thread-safe; {@link #accept} is lock-free but for the cache's own
 * bookkeeping.
 */
public final class LoadRecorder implements Consumer<TenantConnection.Usage> {

	private final Cache<String, Counters> tenants;

	private final long windowNanos;

	private final LongSupplier clock;

	/**
	 * @param window the length of one window, positive
	 * @param maxTenants the most tenants kept, positive
	 * @param clock a nanosecond clock ({@code System::nanoTime})
	 */
	public LoadRecorder(Duration window, long maxTenants, LongSupplier clock) {
		if (window.isZero() || window.isNegative() || maxTenants < 1) {
			throw new IllegalArgumentException("window and maxTenants must be positive: " + window + ", "
					+ maxTenants);
		}
		this.windowNanos = window.toNanos();
		this.clock = clock;
		this.tenants = Caffeine.newBuilder().maximumSize(maxTenants).expireAfterAccess(window.multipliedBy(2)).build();
	}

	@Override
	public void accept(TenantConnection.Usage usage) {
		Counters counters = this.tenants.get(usage.tenantId(), t -> new Counters());
		counters.shardId = usage.shardId();
		counters.current(this.clock.getAsLong() / this.windowNanos).add(usage);
	}

	/** @return each tenant's figures of the current and the previous window, most transactions first */
	public List<TenantLoad> snapshot() {
		long window = this.clock.getAsLong() / this.windowNanos;
		List<TenantLoad> loads = new ArrayList<>();
		this.tenants.asMap().forEach((tenantId, counters) -> {
			TenantLoad load = counters.read(tenantId, window);
			if (load.transactions() > 0 || load.nanosSpent() > 0) {
				loads.add(load);
			}
		});
		loads.sort(Comparator.comparingLong(TenantLoad::transactions).reversed().thenComparing(TenantLoad::tenantId));
		return loads;
	}

	/** A tenant's counters of two consecutive windows. */
	private static final class Counters {

		volatile String shardId = "";

		private final Window[] windows = { new Window(), new Window() };

		Window current(long window) {
			Window w = this.windows[(int) (window & 1)];
			if (w.number != window) {
				synchronized (this) {
					if (w.number != window) {
						w.reset(window);
					}
				}
			}
			return w;
		}

		TenantLoad read(String tenantId, long window) {
			long transactions = 0;
			long rows = 0;
			long nanos = 0;
			for (Window w : this.windows) {
				if (w.number == window || w.number == window - 1) {
					transactions += w.transactions.sum();
					rows += w.rows.sum();
					nanos += w.nanos.sum();
				}
			}
			return new TenantLoad(tenantId, this.shardId, transactions, rows, nanos, -1, -1);
		}

	}

	/** The counters of one window. */
	private static final class Window {

		volatile long number = Long.MIN_VALUE;

		final LongAdder transactions = new LongAdder();

		final LongAdder rows = new LongAdder();

		final LongAdder nanos = new LongAdder();

		void reset(long window) {
			this.transactions.reset();
			this.rows.reset();
			this.nanos.reset();
			this.number = window;
		}

		void add(TenantConnection.Usage usage) {
			this.transactions.add(usage.transactions());
			this.rows.add(usage.rowsWritten());
			this.nanos.add(usage.nanos());
		}

	}

}
