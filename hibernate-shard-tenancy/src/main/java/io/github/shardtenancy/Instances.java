package io.github.shardtenancy;

import java.util.Optional;

/**
 * The instance heartbeat: every instance (one {@link ShardTenancy}) records in the directory database, every
 * {@link InstanceSettings#heartbeatInterval()}, the directory version its router has applied, so that version skew
 * across instances shows (an instance whose sync or push listener stopped is reported
 * {@link InstanceState#LAGGING lagging}, one that stopped altogether {@link InstanceState#GONE gone}). Each
 * heartbeat also reads every instance's row ({@link #lastReport()}), logs a WARN once when an instance starts lagging,
 * and removes the rows of instances gone for longer than {@link InstanceSettings#removeAfter()}. Every time is the
 * directory database's clock. A failed heartbeat is logged and retried at the next interval; it never affects
 * routing.
 *
 * <p>Implemented by the library. Thread-safe.
 */
public interface Instances {

	/** @return this instance's id in the table; never {@code null} */
	String instanceId();

	/** @return the settings; never {@code null} */
	InstanceSettings settings();

	/**
	 * Reads every instance's row now.
	 * @return the report; never {@code null}
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 * @throws IllegalStateException if the heartbeat is disabled ({@link InstanceSettings#enabled()})
	 */
	InstancesReport report();

	/**
	 * @return the report the latest successful heartbeat read; empty before the first one, and when the heartbeat is
	 * disabled
	 */
	Optional<InstancesReport> lastReport();

	/**
	 * Runs one heartbeat now (besides the scheduled ones): records this instance's applied version, reads the report,
	 * removes long-gone rows.
	 * @return the report it read; never {@code null}
	 * @throws DirectoryUnavailableException if the directory cannot be read or written
	 * @throws IllegalStateException if the heartbeat is disabled, or the tenancy is closed
	 */
	InstancesReport heartbeat();

}
