package io.github.shardtenancy.retry;

import java.time.Duration;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@DisplayName("RetrySettings")
class RetrySettingsTest {

	private final RetrySettings defaults = RetrySettings.defaults();

	@Test
	@DisplayName("a value out of range is refused with a configuration exception naming the setting")
	void outOfRangeValuesNameTheSetting() {
		assertRefused(() -> this.defaults.withMaxAttempts(0), "shard-tenancy.retry.max-attempts");
		assertRefused(() -> this.defaults.withBackoff(Duration.ofMillis(-1), 2, Duration.ofMillis(5)),
				"shard-tenancy.retry.initial-delay");
		assertRefused(() -> this.defaults.withBackoff(Duration.ofMillis(1), 0.5, Duration.ofMillis(5)),
				"shard-tenancy.retry.multiplier");
		assertRefused(() -> this.defaults.withBackoff(Duration.ofMillis(1), Double.NaN, Duration.ofMillis(5)),
				"shard-tenancy.retry.multiplier");
		assertRefused(() -> this.defaults.withBackoff(Duration.ofMillis(10), 2, Duration.ofMillis(5)),
				"shard-tenancy.retry.max-delay");
		assertRefused(() -> this.defaults.withBackoff(Duration.ofMillis(10), 2, null), "shard-tenancy.retry.max-delay");
		assertRefused(() -> this.defaults.withJitter(Duration.ofMillis(-1)), "shard-tenancy.retry.jitter");
		assertRefused(() -> this.defaults.withFreezeWait(null), "shard-tenancy.retry.freeze-wait");
	}

	private static void assertRefused(Runnable change, String setting) {
		assertThatThrownBy(change::run).isInstanceOfSatisfying(ShardTenancyConfigurationException.class, (ex) -> {
			assertThat(ex.setting()).isEqualTo(setting);
			assertThat(ex.getMessage()).contains(setting);
		});
	}

	@Test
	@DisplayName("the delay grows by the multiplier from the initial delay up to the max delay")
	void delayGrowsUpToTheMaximum() {
		RetrySettings settings = this.defaults.withBackoff(Duration.ofMillis(10), 2, Duration.ofMillis(500))
			.withJitter(Duration.ofMillis(4));

		assertThat(settings.delayBeforeRetry(1, 0)).isEqualTo(Duration.ofMillis(10));
		assertThat(settings.delayBeforeRetry(2, 0)).isEqualTo(Duration.ofMillis(20));
		assertThat(settings.delayBeforeRetry(4, 0)).isEqualTo(Duration.ofMillis(80));
		assertThat(settings.delayBeforeRetry(7, 0)).isEqualTo(Duration.ofMillis(500));
		assertThat(settings.delayBeforeRetry(1_000, 0)).isEqualTo(Duration.ofMillis(500));
	}

	@Test
	@DisplayName("jitter moves the delay by at most its amount either way, never below the initial or above the max delay")
	void jitterStaysWithinBounds() {
		RetrySettings settings = this.defaults.withBackoff(Duration.ofMillis(10), 2, Duration.ofMillis(500))
			.withJitter(Duration.ofMillis(4));

		assertThat(settings.delayBeforeRetry(2, 1)).isEqualTo(Duration.ofMillis(24));
		assertThat(settings.delayBeforeRetry(2, -1)).isEqualTo(Duration.ofMillis(16));
		assertThat(settings.delayBeforeRetry(1, -1)).isEqualTo(Duration.ofMillis(10));
		assertThat(settings.delayBeforeRetry(9, 1)).isEqualTo(Duration.ofMillis(500));
		for (int retry = 1; retry <= 12; retry++) {
			assertThat(settings.delayBeforeRetry(retry)).isBetween(Duration.ofMillis(10), Duration.ofMillis(500));
		}
		assertThatThrownBy(() -> settings.delayBeforeRetry(0)).isInstanceOf(IllegalArgumentException.class);
	}

}
