package io.github.shardtenancy.micrometer;

import java.util.Objects;

import io.github.shardtenancy.postgresql.DirectoryWatcher;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Micrometer metrics of a PostgreSQL {@link DirectoryWatcher} (push invalidation), read from
 * {@link DirectoryWatcher#status()} when the registry publishes:
 *
 * <table>
 * <caption>Meters</caption>
 * <tr><th>Name</th><th>Type</th><th>What it counts or shows</th></tr>
 * <tr><td>{@code shardtenancy.listener.notifications}</td><td>function counter</td><td>directory notifications
 * received</td></tr>
 * <tr><td>{@code shardtenancy.listener.resyncs}</td><td>function counter</td><td>full resyncs of the router after a
 * (re)connect</td></tr>
 * <tr><td>{@code shardtenancy.listener.reconnects}</td><td>function counter</td><td>connections made after a loss</td></tr>
 * <tr><td>{@code shardtenancy.listener.up}</td><td>gauge</td><td>1 while listening (connected and resynced), else
 * 0</td></tr>
 * </table>
 *
 * <p>Needs {@code hibernate-shard-tenancy-postgresql} on the class path. Thread-safe.
 */
public final class DirectoryWatcherMetrics implements MeterBinder {

	private final DirectoryWatcher watcher;

	/** @param watcher the watcher to observe; never {@code null} */
	public DirectoryWatcherMetrics(DirectoryWatcher watcher) {
		this.watcher = Objects.requireNonNull(watcher, "watcher");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		FunctionCounter.builder("shardtenancy.listener.notifications", this.watcher, (w) -> w.status().notifications())
			.description("Directory change notifications received")
			.register(registry);
		FunctionCounter.builder("shardtenancy.listener.resyncs", this.watcher, (w) -> w.status().resyncs())
			.description("Full resyncs of the router after the listener (re)connected")
			.register(registry);
		FunctionCounter.builder("shardtenancy.listener.reconnects", this.watcher, (w) -> w.status().reconnects())
			.description("Listener connections made after a loss")
			.register(registry);
		Gauge.builder("shardtenancy.listener.up", this.watcher, (w) -> w.isHealthy() ? 1 : 0)
			.description("1 while the directory listener is connected and resynced, else 0")
			.register(registry);
	}

}
