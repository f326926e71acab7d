package io.github.shardtenancy;

import java.time.Instant;

/**
 * A named run was refused at {@link TenantTasks#start}: another run of the same name (in this process or any other)
 * holds the name's lease in the directory ({@code shard_task_run}) and its heartbeat keeps it. Start the run again
 * once that run ended, or once its lease lapsed (its instance stopped renewing it): the resumed run then skips the
 * tenants that completed. Immutable and thread-safe.
 */
public class TenantTaskRunLeasedException extends ShardTenancyException {

	private final String runName;

	private final String holder;

	private final Instant leaseUntil;

	/**
	 * @param runName the run's name; never {@code null}
	 * @param holder the holder of the lease, as it names itself ({@code pid@host#id}); never {@code null}
	 * @param leaseUntil when the holder's lease ends unless its heartbeat renews it; never {@code null}
	 */
	public TenantTaskRunLeasedException(String runName, String holder, Instant leaseUntil) {
		super("Run " + quote(runName) + " is already running: its lease is held by " + quote(holder) + " until "
				+ leaseUntil + " (renewed by its heartbeat); a second run of the name is refused while the lease "
				+ "lives. Start it again once that run ended or its lease lapsed; the tenants it completed are then "
				+ "skipped", null, null, -1, null);
		this.runName = runName;
		this.holder = holder;
		this.leaseUntil = leaseUntil;
	}

	/** @return the run's name; never {@code null} */
	public String runName() {
		return this.runName;
	}

	/** @return who holds the lease ({@code pid@host#id} of the run that holds it); never {@code null} */
	public String holder() {
		return this.holder;
	}

	/** @return when the lease ends unless renewed, as the holder's clock set it; never {@code null} */
	public Instant leaseUntil() {
		return this.leaseUntil;
	}

}
