package io.github.shardtenancy.micrometer;

import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.IMetricsTracker;
import com.zaxxer.hikari.metrics.MetricsTrackerFactory;
import com.zaxxer.hikari.metrics.PoolStats;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.github.shardtenancy.spi.ShardPoolListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import org.jspecify.annotations.Nullable;

/**
 * HikariCP's own Micrometer metrics for every shard pool, as HikariCP's {@link MicrometerMetricsTrackerFactory} records
 * them ({@code hikaricp.connections}, {@code hikaricp.connections.active}, {@code .idle}, {@code .pending},
 * {@code .max}, {@code .min}, {@code .timeout}, {@code .acquire}, {@code .usage}, {@code .creation}, tagged
 * {@code pool} = the pool name), each with an extra {@code shard} tag holding the logical shard id.
 *
 * <p>Add it to the tenancy as a {@link ShardPoolListener} ({@code ShardTenancyBuilder.shardPoolListener}) and bind it
 * to a registry ({@link #bindTo(MeterRegistry)}, in either order): every shard pool that is a
 * {@link HikariDataSource} (or wraps one) gets a metrics tracker when it joins the topology, or when the registry is
 * bound for the pools that joined before. A pool that already has a metrics tracker or a metric registry of its own is
 * left as it is. HikariCP removes a pool's meters when the pool is closed, which the tenancy does when it retires the
 * shard or closes (pools it does not own keep their meters until their owner closes them).
 *
 * <p>Thread-safe. Binds to one registry: a second {@link #bindTo(MeterRegistry)} is ignored (HikariCP accepts one
 * tracker per pool; with several registries, bind a {@code CompositeMeterRegistry}).
 *
 * @see <a href="https://github.com/brettwooldridge/HikariCP/wiki/MicroMeter">HikariCP: Micrometer metrics</a>
 */
public final class ShardPoolMetrics implements MeterBinder, ShardPoolListener {

	/** The tag holding the logical shard id. */
	public static final String SHARD_TAG = "shard";

	private final Object lock = new Object();

	private @Nullable MeterRegistry registry;

	/** Pools that joined before a registry was bound, by shard. */
	private final Map<String, DataSource> waiting = new LinkedHashMap<>();

	@Override
	public void bindTo(MeterRegistry registry) {
		synchronized (this.lock) {
			if (this.registry != null) {
				return;
			}
			this.registry = registry;
			this.waiting.forEach((shardId, pool) -> instrument(registry, shardId, pool));
			this.waiting.clear();
		}
	}

	@Override
	public void poolAdded(String shardId, DataSource pool) {
		synchronized (this.lock) {
			if (this.registry == null) {
				this.waiting.put(shardId, pool);
			}
			else {
				instrument(this.registry, shardId, pool);
			}
		}
	}

	@Override
	public void poolRemoved(String shardId, DataSource pool) {
		synchronized (this.lock) {
			this.waiting.remove(shardId, pool);
		}
	}

	private static void instrument(MeterRegistry registry, String shardId, DataSource pool) {
		HikariDataSource hikari = hikari(pool);
		if (hikari == null || hikari.isClosed() || hikari.getMetricsTrackerFactory() != null
				|| hikari.getMetricRegistry() != null) {
			return;
		}
		hikari.setMetricsTrackerFactory(new ShardTrackerFactory(registry, shardId));
	}

	private static @Nullable HikariDataSource hikari(DataSource pool) {
		if (pool instanceof HikariDataSource hikari) {
			return hikari;
		}
		try {
			return pool.isWrapperFor(HikariDataSource.class) ? pool.unwrap(HikariDataSource.class) : null;
		}
		catch (SQLException ex) {
			return null;
		}
	}

	/**
	 * HikariCP's Micrometer tracker, registering through a composite registry whose only member is the application's
	 * registry and whose common tag is the shard: the meters land in the application's registry with the extra tag,
	 * and removing them from the composite (HikariCP does when the pool closes) removes them there too.
	 */
	private record ShardTrackerFactory(MeterRegistry registry, String shardId) implements MetricsTrackerFactory {

		@Override
		public IMetricsTracker create(String poolName, PoolStats poolStats) {
			CompositeMeterRegistry tagged = new CompositeMeterRegistry(this.registry.config().clock());
			tagged.config().commonTags(java.util.List.of(Tag.of(SHARD_TAG, this.shardId)));
			tagged.add(this.registry);
			IMetricsTracker tracker = new MicrometerMetricsTrackerFactory(tagged).create(poolName, poolStats);
			return new IMetricsTracker() {

				@Override
				public void recordConnectionCreatedMillis(long connectionCreatedMillis) {
					tracker.recordConnectionCreatedMillis(connectionCreatedMillis);
				}

				@Override
				public void recordConnectionAcquiredNanos(long elapsedAcquiredNanos) {
					tracker.recordConnectionAcquiredNanos(elapsedAcquiredNanos);
				}

				@Override
				public void recordConnectionUsageMillis(long elapsedBorrowedMillis) {
					tracker.recordConnectionUsageMillis(elapsedBorrowedMillis);
				}

				@Override
				public void recordConnectionTimeout() {
					tracker.recordConnectionTimeout();
				}

				@Override
				public void close() {
					tracker.close();
					// Detaches the composite from the application's registry; never close() it, which would close
					// the application's registry too.
					tagged.remove(ShardTrackerFactory.this.registry);
				}

			};
		}

	}

}
