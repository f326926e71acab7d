package io.github.shardtenancy.spi;

import java.util.List;
import java.util.function.Consumer;

import io.github.shardtenancy.MoveStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells several observers every event, in order ({@link ShardTenancyObserver#composite(List)}). Immutable and
 * thread-safe.
 */
final class CompositeObserver implements ShardTenancyObserver {

	private static final Logger log = LoggerFactory.getLogger(CompositeObserver.class);

	private final List<ShardTenancyObserver> observers;

	CompositeObserver(List<ShardTenancyObserver> observers) {
		this.observers = observers;
	}

	@Override
	public void fenceRejected(String shardId, String reason) {
		tellAll((o) -> o.fenceRejected(shardId, reason));
	}

	@Override
	public void retried() {
		tellAll(ShardTenancyObserver::retried);
	}

	@Override
	public void retriesExhausted() {
		tellAll(ShardTenancyObserver::retriesExhausted);
	}

	@Override
	public void directoryLookup(long nanos, boolean found) {
		tellAll((o) -> o.directoryLookup(nanos, found));
	}

	@Override
	public void moveFlipped(String mover, String sourceShardId, String targetShardId, long totalNanos,
			long freezeNanos) {
		tellAll((o) -> o.moveFlipped(mover, sourceShardId, targetShardId, totalNanos, freezeNanos));
	}

	@Override
	public void moveStepRecorded(MoveStatus move) {
		tellAll((o) -> o.moveStepRecorded(move));
	}

	private void tellAll(Consumer<ShardTenancyObserver> event) {
		for (ShardTenancyObserver observer : this.observers) {
			try {
				event.accept(observer);
			}
			catch (RuntimeException ex) {
				log.warn("Observer {} failed; the other observers are still told", observer, ex);
			}
		}
	}

	@Override
	public String toString() {
		return "CompositeObserver" + this.observers;
	}

}
