package io.github.shardtenancy.boot.actuate;

import java.util.Map;

/**
 * The state of the directory's push listener (the PostgreSQL {@code DirectoryWatcher}), as shown by the endpoint and
 * the health indicator, without making them depend on the PostgreSQL module.
 */
@FunctionalInterface
public interface WatcherState {

	/** No listener: the router learns about changes by polling only. */
	WatcherState NONE = () -> null;

	/**
	 * @return the listener's state and counters (at least {@code state} and {@code healthy}), or {@code null} when
	 * there is no listener
	 */
	Map<String, Object> describe();

	/** @return whether a listener exists and is not listening (it lost its connection or has not resynced yet) */
	default boolean isDown() {
		Map<String, Object> state = describe();
		return state != null && Boolean.FALSE.equals(state.get("healthy"));
	}

}
