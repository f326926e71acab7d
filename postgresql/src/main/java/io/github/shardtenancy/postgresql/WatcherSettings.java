package io.github.shardtenancy.postgresql;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link DirectoryWatcher}. Immutable; start from {@link #defaults()} and change with the
 * {@code with...} methods.
 *
 * @param pollInterval how often the watcher reads the directory even without a notification, the safety net for a
 * lost notification (default 30 s); it also checks the listener connection is alive
 * @param waitTimeout how long one blocking wait for notifications lasts before the watcher looks at its timers and
 * at {@link DirectoryWatcher#close()} (default 500 ms); a notification ends the wait at once
 * @param initialBackoff the pause after the first failed reconnect (default 100 ms); doubled after each failure
 * @param maxBackoff the longest pause between reconnect attempts (default 5 s)
 * @param connectTimeout the TCP connect and login timeout of the listener connection (default 5 s, whole seconds)
 * @param applicationName the {@code application_name} of the listener connection, visible in
 * {@code pg_stat_activity} (default {@code shard-tenancy-directory-watcher})
 * @param setting the configuration key naming the listener URL, quoted in configuration errors (default
 * {@code shard-tenancy.directory.url})
 */
public record WatcherSettings(Duration pollInterval, Duration waitTimeout, Duration initialBackoff,
		Duration maxBackoff, Duration connectTimeout, String applicationName, String setting) {

	/** @throws IllegalArgumentException if a duration is not positive, or the backoffs are out of order */
	public WatcherSettings {
		requirePositive(pollInterval, "pollInterval");
		requirePositive(waitTimeout, "waitTimeout");
		requirePositive(initialBackoff, "initialBackoff");
		requirePositive(maxBackoff, "maxBackoff");
		requirePositive(connectTimeout, "connectTimeout");
		Objects.requireNonNull(applicationName, "applicationName");
		Objects.requireNonNull(setting, "setting");
		if (maxBackoff.compareTo(initialBackoff) < 0) {
			throw new IllegalArgumentException("maxBackoff " + maxBackoff + " is shorter than initialBackoff "
					+ initialBackoff);
		}
	}

	/** @return the defaults described on the components */
	public static WatcherSettings defaults() {
		return new WatcherSettings(Duration.ofSeconds(30), Duration.ofMillis(500), Duration.ofMillis(100),
				Duration.ofSeconds(5), Duration.ofSeconds(5), "shard-tenancy-directory-watcher",
				"shard-tenancy.directory.url");
	}

	/** @param value see {@link #pollInterval()} @return a copy with it changed */
	public WatcherSettings withPollInterval(Duration value) {
		return new WatcherSettings(value, this.waitTimeout, this.initialBackoff, this.maxBackoff, this.connectTimeout,
				this.applicationName, this.setting);
	}

	/** @param value see {@link #waitTimeout()} @return a copy with it changed */
	public WatcherSettings withWaitTimeout(Duration value) {
		return new WatcherSettings(this.pollInterval, value, this.initialBackoff, this.maxBackoff, this.connectTimeout,
				this.applicationName, this.setting);
	}

	/**
	 * @param initial see {@link #initialBackoff()}
	 * @param max see {@link #maxBackoff()}
	 * @return a copy with them changed
	 */
	public WatcherSettings withBackoff(Duration initial, Duration max) {
		return new WatcherSettings(this.pollInterval, this.waitTimeout, initial, max, this.connectTimeout,
				this.applicationName, this.setting);
	}

	/** @param value see {@link #connectTimeout()} @return a copy with it changed */
	public WatcherSettings withConnectTimeout(Duration value) {
		return new WatcherSettings(this.pollInterval, this.waitTimeout, this.initialBackoff, this.maxBackoff, value,
				this.applicationName, this.setting);
	}

	/** @param value see {@link #applicationName()} @return a copy with it changed */
	public WatcherSettings withApplicationName(String value) {
		return new WatcherSettings(this.pollInterval, this.waitTimeout, this.initialBackoff, this.maxBackoff,
				this.connectTimeout, value, this.setting);
	}

	/** @param value see {@link #setting()} @return a copy with it changed */
	public WatcherSettings withSetting(String value) {
		return new WatcherSettings(this.pollInterval, this.waitTimeout, this.initialBackoff, this.maxBackoff,
				this.connectTimeout, this.applicationName, value);
	}

	private static void requirePositive(Duration value, String name) {
		Objects.requireNonNull(value, name);
		if (value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(name + " must be positive, was " + value);
		}
	}

}
