package io.github.shardtenancy.boot;

import java.time.Duration;

/**
 * The per-second timeline the {@code shardtenancy} Actuator endpoint serves (committed transactions, retries, fence
 * rejections and freeze windows). Bound from {@code shard-tenancy.timeline.*}, see {@link ShardTenancyProperties}.
 */
public class TimelineProperties {

	/**
	 * Whether the timeline is recorded while the {@code shardtenancy} endpoint is available. Default true.
	 */
	private boolean enabled = true;

	/** Length of the timeline kept, rounded down to whole seconds. Default 5 minutes. */
	private Duration window = Duration.ofMinutes(5);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getWindow() {
		return this.window;
	}

	public void setWindow(Duration window) {
		this.window = window;
	}

}
