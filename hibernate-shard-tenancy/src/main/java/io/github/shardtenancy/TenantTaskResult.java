package io.github.shardtenancy;

import java.util.Objects;

/**
 * The outcome of one tenant in a {@link TenantTaskRun}.
 *
 * @param tenantId the tenant; never {@code null}
 * @param status what happened; never {@code null}
 * @param value what the work returned for {@link Status#DONE}, otherwise {@code null}
 * @param shardId the shard the tenant's transaction committed (or last failed) on; {@code null} when it did not run
 * @param error the failure for {@link Status#FAILED}, otherwise {@code null}
 * @param <T> the result type
 */
public record TenantTaskResult<T>(String tenantId, Status status, T value, String shardId, Throwable error) {

	/** What happened to a tenant. */
	public enum Status {

		/** The work ran and its transaction committed. */
		DONE,

		/** The tenant had completed in an earlier run of the same name; the work was not run again. */
		ALREADY_DONE,

		/**
		 * The work, or its transaction, failed (after the retries); nothing of it was committed. Also a named run's
		 * tenant that the run did not commit because it had lost its lease (the error is then a
		 * {@link io.github.shardtenancy.TenantTaskLeaseLostException}).
		 */
		FAILED,

		/** The run was stopped before the tenant's turn; the work did not run. */
		NOT_RUN

	}

	public TenantTaskResult {
		Objects.requireNonNull(tenantId, "tenantId");
		Objects.requireNonNull(status, "status");
	}

}
