package io.github.shardtenancy.boot;

import java.time.Duration;

/** The router's background sync. Bound from {@code shard-tenancy.sync.*}, see {@link ShardTenancyProperties}. */
public class SyncProperties {

	/** How often the router polls the directory version for changes. Default 1 second. */
	private Duration interval = Duration.ofSeconds(1);

	/**
	 * With a PostgreSQL directory and {@code hibernate-shard-tenancy-postgresql} on the class path: whether to
	 * listen for the directory's {@code NOTIFY} pushes on a dedicated connection. Default true.
	 */
	private boolean listen = true;

	/**
	 * How often the PostgreSQL directory watcher polls as a safety net for missed notifications (and checks its
	 * listener connection). Default 30 seconds.
	 */
	private Duration safetyPoll = Duration.ofSeconds(30);

	public boolean isListen() {
		return this.listen;
	}

	public void setListen(boolean listen) {
		this.listen = listen;
	}

	public Duration getSafetyPoll() {
		return this.safetyPoll;
	}

	public void setSafetyPoll(Duration safetyPoll) {
		this.safetyPoll = safetyPoll;
	}

	public Duration getInterval() {
		return this.interval;
	}

	public void setInterval(Duration interval) {
		this.interval = interval;
	}

}
