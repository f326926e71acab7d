package io.github.shardtenancy.internal.routing;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.shardtenancy.spi.ShardTenancyObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells every observer added, in the order added; an observer that throws is logged and does not stop the others.
 * Thread-safe.
 */
public final class CompositeObserver implements ShardTenancyObserver {

	private static final Logger log = LoggerFactory.getLogger(CompositeObserver.class);

	private final List<ShardTenancyObserver> observers = new CopyOnWriteArrayList<>();

	/** @param observer added; never {@code null} */
	public void add(ShardTenancyObserver observer) {
		this.observers.add(Objects.requireNonNull(observer, "observer"));
	}

	/** @param observer removed if present */
	public void remove(ShardTenancyObserver observer) {
		this.observers.remove(observer);
	}

	private void each(java.util.function.Consumer<ShardTenancyObserver> call) {
		for (ShardTenancyObserver observer : this.observers) {
			try {
				call.accept(observer);
			}
			catch (RuntimeException ex) {
				log.warn("Observer {} failed: {}", observer, ex.toString());
			}
		}
	}

	@Override
	public void fenceRejected(String shardId, String reason) {
		each((o) -> o.fenceRejected(shardId, reason));
	}

	@Override
	public void retried() {
		each(ShardTenancyObserver::retried);
	}

	@Override
	public void retriesExhausted() {
		each(ShardTenancyObserver::retriesExhausted);
	}

	@Override
	public void directoryLookup(long nanos, boolean found) {
		each((o) -> o.directoryLookup(nanos, found));
	}

	@Override
	public void moveFlipped(String mover, String sourceShardId, String targetShardId, long totalNanos,
			long freezeNanos) {
		each((o) -> o.moveFlipped(mover, sourceShardId, targetShardId, totalNanos, freezeNanos));
	}

}
