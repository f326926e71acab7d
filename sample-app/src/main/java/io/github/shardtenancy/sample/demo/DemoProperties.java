package io.github.shardtenancy.sample.demo;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the demo ({@code --demo}), under {@code demo.*}.
 *
 * @param duration how long writers and mover run (default 20 s)
 * @param writers how many concurrent writer threads (default 8)
 * @param writerPause how long each writer sleeps between two transactions (default 2 ms), which keeps the tenants
 * small enough for moves to stay quick
 * @param movePause how long the mover sleeps between two moves (default 200 ms)
 * @param moverSyncInterval the sync interval of the mover's own router, the "other application instance" (default
 * 10 min, so that it never learns from the directory by itself)
 */
@ConfigurationProperties("demo")
public record DemoProperties(@DefaultValue("20s") Duration duration, @DefaultValue("8") int writers,
		@DefaultValue("2ms") Duration writerPause, @DefaultValue("200ms") Duration movePause,
		@DefaultValue("10m") Duration moverSyncInterval) {

	/** @throws IllegalArgumentException if a duration is negative or there is no writer */
	public DemoProperties {
		if (duration.isNegative() || writerPause.isNegative() || movePause.isNegative()
				|| moverSyncInterval.isNegative() || moverSyncInterval.isZero()) {
			throw new IllegalArgumentException("demo durations must not be negative (mover-sync-interval positive)");
		}
		if (writers < 1) {
			throw new IllegalArgumentException("demo.writers must be at least 1, was " + writers);
		}
	}

}
