package io.github.shardtenancy.spi;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

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
		};

		ShardTenancyObserver composite = ShardTenancyObserver.composite(List.of(failing, recording));
		composite.moveFlipped("online", "shard-1", "shard-2", 30, 7);
		composite.retriesExhausted();

		assertThat(seen).containsExactly("failing flipped shard-1>shard-2",
				"recording flipped shard-1>shard-2 in 30/7", "recording exhausted");
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
