package io.github.shardtenancy.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.shardtenancy.MoveStatus;
import org.jspecify.annotations.Nullable;
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
	public void rerunMismatch(@Nullable String tenantId, String table) {
		tellAll((o) -> o.rerunMismatch(tenantId, table));
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

	@Override
	public void dualRead(String name, String outcome, long nanos) {
		tellAll((o) -> o.dualRead(name, outcome, nanos));
	}

	@Override
	public Scope retryStarted(String tenantId) {
		return openAll((o) -> o.retryStarted(tenantId));
	}

	@Override
	public Scope attemptStarted(String tenantId, int attempt) {
		return openAll((o) -> o.attemptStarted(tenantId, attempt));
	}

	@Override
	public Scope moveStepStarted(String moveId, String tenantId, String mover, String step, String sourceShardId,
			String targetShardId) {
		return openAll((o) -> o.moveStepStarted(moveId, tenantId, mover, step, sourceShardId, targetShardId));
	}

	/** Opens a scope of every observer; the composite scope tells them in order and closes them in reverse order. */
	private Scope openAll(Function<ShardTenancyObserver, Scope> open) {
		List<Scope> scopes = new ArrayList<>(this.observers.size());
		for (ShardTenancyObserver observer : this.observers) {
			try {
				Scope scope = open.apply(observer);
				if (scope != null && scope != Scope.NONE) {
					scopes.add(scope);
				}
			}
			catch (RuntimeException ex) {
				log.warn("Observer {} failed; the other observers are still told", observer, ex);
			}
		}
		if (scopes.isEmpty()) {
			return Scope.NONE;
		}
		return (scopes.size() == 1) ? scopes.get(0) : new CompositeScope(scopes);
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

	/** The scopes of several observers as one: told in order, closed in reverse order. */
	private record CompositeScope(List<Scope> scopes) implements Scope {

		@Override
		public void routed(String shardId) {
			each((s) -> s.routed(shardId));
		}

		@Override
		public void outcome(String outcome, String reason, Throwable failure) {
			each((s) -> s.outcome(outcome, reason, failure));
		}

		@Override
		public void close() {
			for (int i = this.scopes.size() - 1; i >= 0; i--) {
				Scope scope = this.scopes.get(i);
				try {
					scope.close();
				}
				catch (RuntimeException ex) {
					log.warn("Observer scope {} failed to close; the others are still closed", scope, ex);
				}
			}
		}

		private void each(Consumer<Scope> event) {
			for (Scope scope : this.scopes) {
				try {
					event.accept(scope);
				}
				catch (RuntimeException ex) {
					log.warn("Observer scope {} failed; the others are still told", scope, ex);
				}
			}
		}

	}

}
