package io.github.shardtenancy.spi;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.DirectoryUnavailableException;

/**
 * The side of a router that a directory watcher feeds: a watcher that learns of directory changes sooner than the
 * router's poll (for example through PostgreSQL {@code LISTEN}/{@code NOTIFY},
 * https://www.postgresql.org/docs/current/sql-notify.html) applies them here. Obtained from
 * {@code ShardTenancy#routeFeed()}; implemented by the library, called by watcher modules.
 *
 * <p>Thread-safe. Nothing applied here makes the router's directory version go backwards.
 */
public interface RouteFeed {

	/** @return whether the router has loaded the directory once and can serve */
	boolean isReady();

	/** @return the directory version the router holds; never decreases */
	long version();

	/**
	 * Applies one entry read from the directory (or carried by a notification) unless the router holds a newer one.
	 * The router's directory version does not move: only {@link #refresh()} and {@link #resync()} advance it.
	 * @param entry the entry; never {@code null}
	 * @return the entry now held for the tenant; never {@code null}
	 */
	DirectoryEntry apply(DirectoryEntry entry);

	/**
	 * Reads the entries changed since the held directory version and applies them.
	 * @return the directory version now held
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	long refresh();

	/**
	 * Reads the whole directory (a snapshot) and applies it; for a watcher that may have missed changes (after a
	 * reconnect).
	 * @return the directory version the snapshot is complete up to
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	long resync();

}
