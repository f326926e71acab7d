package io.github.shardtenancy.spi;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.MoveStep;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

@DisplayName("ShardTenancyObserver.composite")
class CompositeObserverTest {

	@Test
	@DisplayName("every observer is told every event in order, also after one of them throws")
	void everyObserverIsTold() {
		List<String> seen = new CopyOnWriteArrayList<>();
		ShardTenancyObserver failing = new ShardTenancyObserver() {
			@Override
			public void moveFlipped(String mover, String source, String target, long totalNanos, long freezeNanos) {
				seen.add("failing flipped " + source + ">" + target);
				throw new IllegalStateException("breaks the contract");
			}
		};
		ShardTenancyObserver recording = new ShardTenancyObserver() {
			@Override
			public void moveFlipped(String mover, String source, String target, long totalNanos, long freezeNanos) {
				seen.add("recording flipped " + source + ">" + target + " in " + totalNanos + "/" + freezeNanos);
			}

			@Override
			public void retriesExhausted() {
				seen.add("recording exhausted");
			}

			@Override
			public void moveStepRecorded(MoveStatus move) {
				seen.add("recording " + move.moveId() + " " + move.tenantId() + " " + move.step());
			}
		};

		ShardTenancyObserver composite = ShardTenancyObserver.composite(List.of(failing, recording));
		composite.moveFlipped("online", "shard-1", "shard-2", 30, 7);
		composite.retriesExhausted();
		Instant now = Instant.now();
		composite.moveStepRecorded(new MoveStatus("m-1", "acme", "shard-1", "shard-2", MoveStep.FROZEN, null,
				MoveSettings.defaults(), "owner", now, now, now, null, null, null));

		assertThat(seen).containsExactly("failing flipped shard-1>shard-2",
				"recording flipped shard-1>shard-2 in 30/7", "recording exhausted", "recording m-1 acme FROZEN");
	}

	@Test
	@DisplayName("scopes: every observer's scope is told the shard and the outcome in order and closed in reverse order, "
			+ "an observer that throws on opening is skipped, and observers without a scope cost nothing")
	void scopesFanOut() {
		List<String> seen = new CopyOnWriteArrayList<>();
		class Recording implements ShardTenancyObserver {

			private final String name;

			Recording(String name) {
				this.name = name;
			}

			@Override
			public Scope attemptStarted(String tenantId, int attempt) {
				seen.add(this.name + " started " + tenantId + " #" + attempt);
				return new Scope() {
					@Override
					public void routed(String shardId) {
						seen.add(Recording.this.name + " routed " + shardId);
					}

					@Override
					public void outcome(String outcome, String reason, Throwable failure) {
						seen.add(Recording.this.name + " " + outcome + " " + reason);
					}

					@Override
					public void close() {
						seen.add(Recording.this.name + " closed");
					}
				};
			}

		}
		ShardTenancyObserver failing = new ShardTenancyObserver() {
			@Override
			public Scope attemptStarted(String tenantId, int attempt) {
				throw new IllegalStateException("breaks the contract");
			}
		};
		ShardTenancyObserver silent = new ShardTenancyObserver() {
		};

		ShardTenancyObserver composite = ShardTenancyObserver
			.composite(List.of(new Recording("first"), failing, silent, new Recording("second")));
		try (ShardTenancyObserver.Scope scope = composite.attemptStarted("acme", 2)) {
			scope.routed("shard-1");
			scope.outcome("rejected", "MOVED", null);
		}

		assertThat(seen).containsExactly("first started acme #2", "second started acme #2", "first routed shard-1",
				"second routed shard-1", "first rejected MOVED", "second rejected MOVED", "second closed",
				"first closed");
		assertThat(ShardTenancyObserver.composite(List.of(silent, failing)).retryStarted("acme"))
			.isSameAs(ShardTenancyObserver.Scope.NONE);
	}

	@Test
	@DisplayName("no observer is NONE and one observer is itself")
	void emptyAndSingle() {
		ShardTenancyObserver only = new ShardTenancyObserver() {
		};
		assertThat(ShardTenancyObserver.composite(List.of())).isSameAs(ShardTenancyObserver.NONE);
		assertThat(ShardTenancyObserver.composite(List.of(only))).isSameAs(only);
	}

}
