package io.github.shardtenancy;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * One instance's row of the heartbeat table, as a report read it. Every time is the directory database's clock.
 *
 * @param instanceId the instance's id ({@link InstanceSettings#instanceId()})
 * @param state live, lagging or gone, as of the report
 * @param appliedVersion the directory version the instance's router had applied at its last heartbeat
 * @param appliedAt the first heartbeat that recorded {@code appliedVersion} (the router applied it between that
 * heartbeat and the one before)
 * @param behindSince since when the instance has been behind the directory: the heartbeat that first saw a directory
 * version it had not applied, or {@code null} when it was not behind at its last heartbeat
 * @param lag how long it has been behind as of the report ({@link Duration#ZERO} when not behind); its state is
 * {@link InstanceState#LAGGING} once this exceeds {@link InstanceSettings#maxLag()}
 * @param heartbeatAt its last heartbeat
 * @param startedAt when it started (its first heartbeat)
 * @param stoppedAt when it was closed, or {@code null} if it was not
 * @param libraryVersion the library version it runs ({@code unknown} when the jar's manifest does not say)
 */
public record InstanceRecord(String instanceId, InstanceState state, long appliedVersion, Instant appliedAt,
		@Nullable Instant behindSince, Duration lag, Instant heartbeatAt, Instant startedAt, @Nullable Instant stoppedAt,
		String libraryVersion) {

	/** @throws NullPointerException if a non-nullable component is {@code null} */
	public InstanceRecord {
		Objects.requireNonNull(instanceId, "instanceId");
		Objects.requireNonNull(state, "state");
		Objects.requireNonNull(appliedAt, "appliedAt");
		Objects.requireNonNull(lag, "lag");
		Objects.requireNonNull(heartbeatAt, "heartbeatAt");
		Objects.requireNonNull(startedAt, "startedAt");
		Objects.requireNonNull(libraryVersion, "libraryVersion");
	}

	/** @return whether it is live or lagging (not gone) */
	public boolean live() {
		return this.state != InstanceState.GONE;
	}

}
