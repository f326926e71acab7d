package io.github.shardtenancy.boot;

import java.time.Duration;

import io.github.shardtenancy.InstanceSettings;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import org.jspecify.annotations.Nullable;

/**
 * The instance heartbeat: every instance records in the directory database the directory version it has applied, so
 * that version skew across instances shows in metrics, health and the Actuator endpoint. Bound from
 * {@code shard-tenancy.instances.*}, see {@link ShardTenancyProperties}.
 */
public class InstancesProperties {

	/**
	 * Whether this instance records its heartbeat (one small UPDATE of the directory database per interval; it
	 * changes no routing). Default true.
	 */
	private boolean enabled = true;

	/**
	 * Id of this instance in the directory's instances table, unique among live instances, at most 200 characters.
	 * Default: host name, process id and a random suffix, new at every start.
	 */
	private @Nullable String id;

	/** Interval between two heartbeats of this instance. Default 10 seconds. */
	private Duration heartbeatInterval = Duration.ofSeconds(10);

	/**
	 * Duration an instance may stay silent before it is reported gone; longer than the heartbeat interval. Default 1
	 * minute.
	 */
	private Duration goneAfter = Duration.ofMinutes(1);

	/** Duration a gone instance stays listed before its row is removed; at least gone-after. Default 1 hour. */
	private Duration removeAfter = Duration.ofHours(1);

	/**
	 * Maximum time an instance may take to apply a directory version before it is reported lagging (a WARN log
	 * once, the health details, the metrics). Default 1 minute.
	 */
	private Duration maxLag = Duration.ofMinutes(1);

	/**
	 * @return the settings
	 * @throws ShardTenancyConfigurationException naming {@code shard-tenancy.instances} when a value is out of range
	 */
	InstanceSettings toSettings() {
		try {
			return new InstanceSettings(this.enabled, (this.id != null && !this.id.isBlank()) ? this.id : null,
					this.heartbeatInterval, this.goneAfter, this.removeAfter, this.maxLag).requireConsistent();
		}
		catch (IllegalArgumentException | NullPointerException ex) {
			throw new ShardTenancyConfigurationException("shard-tenancy.instances", "Invalid shard-tenancy.instances "
					+ "settings: " + ex.getMessage() + ". Set heartbeat-interval, gone-after, remove-after and max-lag "
					+ "to positive durations with gone-after longer than heartbeat-interval and remove-after at least "
					+ "gone-after, and id to at most 200 characters");
		}
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable String getId() {
		return this.id;
	}

	public void setId(@Nullable String id) {
		this.id = id;
	}

	public Duration getHeartbeatInterval() {
		return this.heartbeatInterval;
	}

	public void setHeartbeatInterval(Duration heartbeatInterval) {
		this.heartbeatInterval = heartbeatInterval;
	}

	public Duration getGoneAfter() {
		return this.goneAfter;
	}

	public void setGoneAfter(Duration goneAfter) {
		this.goneAfter = goneAfter;
	}

	public Duration getRemoveAfter() {
		return this.removeAfter;
	}

	public void setRemoveAfter(Duration removeAfter) {
		this.removeAfter = removeAfter;
	}

	public Duration getMaxLag() {
		return this.maxLag;
	}

	public void setMaxLag(Duration maxLag) {
		this.maxLag = maxLag;
	}

}
