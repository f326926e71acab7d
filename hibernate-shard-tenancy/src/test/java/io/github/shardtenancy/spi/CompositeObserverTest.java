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
	@DisplayName("no observer is NONE and one observer is itself")
	void emptyAndSingle() {
		ShardTenancyObserver only = new ShardTenancyObserver() {
		};
		assertThat(ShardTenancyObserver.composite(List.of())).isSameAs(ShardTenancyObserver.NONE);
		assertThat(ShardTenancyObserver.composite(List.of(only))).isSameAs(only);
	}

}
