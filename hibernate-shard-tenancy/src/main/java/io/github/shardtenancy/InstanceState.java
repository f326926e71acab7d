package io.github.shardtenancy;

/** What the heartbeat table says of an instance ({@link InstanceRecord#state()}). */
public enum InstanceState {

	/** Heartbeat within {@link InstanceSettings#goneAfter()}, and every directory version applied in time. */
	LIVE,

	/**
	 * Heartbeat within {@link InstanceSettings#goneAfter()}, but a directory version it has not applied was written
	 * more than {@link InstanceSettings#maxLag()} ago.
	 */
	LAGGING,

	/** Closed, or silent for longer than {@link InstanceSettings#goneAfter()}. */
	GONE

}
