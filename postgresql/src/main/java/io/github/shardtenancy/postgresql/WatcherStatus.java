package io.github.shardtenancy.postgresql;

import java.time.Instant;

/**
 * A snapshot of a {@link DirectoryWatcher}'s state and counters. Counts are exact and never decrease.
 *
 * @param state the state when the snapshot was taken
 * @param downSince when the listener connection was lost (or first failed), or {@code null} while listening
 * @param lastNotificationAt when the last notification arrived, or {@code null} if none has
 * @param notifications notifications received
 * @param refreshes router refreshes made because of notifications
 * @param resyncs full resyncs ({@link io.github.shardtenancy.spi.RouteFeed#resync()}) after a
 * (re)connect
 * @param reconnects successful connections after a loss (the first connection is not counted)
 * @param polls safety-net polls made
 * @param listenerBackendPid the PostgreSQL backend pid of the listener connection, or {@code -1} when not connected
 */
public record WatcherStatus(DirectoryWatcher.State state, Instant downSince, Instant lastNotificationAt,
		long notifications, long refreshes, long resyncs, long reconnects, long polls, int listenerBackendPid) {
}
