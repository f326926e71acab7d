package io.github.shardtenancy.micrometer.observation;

import io.micrometer.observation.Observation;

/**
 * What the library's observations have in common: the tenant, and how the observed work ended. Its subclasses are
 * the contexts of the three observations ({@link ShardTenancyObservationDocumentation}); a
 * {@link io.micrometer.observation.ObservationConvention} of one of them is applied to that one only.
 *
 * <p>Filled by the thread that runs the observed work; read by the conventions and handlers when the observation
 * starts and stops.
 */
public abstract class ShardTenancyObservationContext extends Observation.Context {

	private final String tenantId;

	private String outcome;

	private String reason;

	ShardTenancyObservationContext(String tenantId) {
		this.tenantId = tenantId;
	}

	/** @return the tenant the work ran for, or {@code null} if none was bound */
	public String getTenantId() {
		return this.tenantId;
	}

	/**
	 * @return how the work ended ({@code success}, {@code rejected}, {@code error}, {@code exhausted},
	 * {@code unsafe_to_rerun}, {@code not_retryable}), or {@code null} while it runs or if it ended without one
	 */
	public String getOutcome() {
		return this.outcome;
	}

	/** @return the reason of the fence rejection the work ended with ({@code MOVED}, ...), or {@code null} */
	public String getReason() {
		return this.reason;
	}

	void outcome(String outcome, String reason) {
		this.outcome = outcome;
		this.reason = reason;
	}

	/** One attempt of a retried unit of work: a routed transaction, typically. */
	public static final class TransactionAttempt extends ShardTenancyObservationContext {

		private final int attempt;

		private String shardId;

		TransactionAttempt(String tenantId, int attempt) {
			super(tenantId);
			this.attempt = attempt;
		}

		/** @return the attempt's number, from 1 */
		public int getAttempt() {
			return this.attempt;
		}

		/** @return the shard the attempt was routed to, or {@code null} if it borrowed no shard connection */
		public String getShardId() {
			return this.shardId;
		}

		void routed(String shardId) {
			this.shardId = shardId;
		}

	}

	/** A retried unit of work, all its attempts and backoff waits included. */
	public static final class Retry extends ShardTenancyObservationContext {

		private int attempts;

		Retry(String tenantId) {
			super(tenantId);
		}

		/** @return the attempts begun so far */
		public int getAttempts() {
			return this.attempts;
		}

		void attemptStarted() {
			this.attempts++;
		}

	}

	/** One step of a tenant move. */
	public static final class MoveStep extends ShardTenancyObservationContext {

		private final String moveId;

		private final String mover;

		private final String step;

		private final String sourceShardId;

		private final String targetShardId;

		MoveStep(String moveId, String tenantId, String mover, String step, String sourceShardId,
				String targetShardId) {
			super(tenantId);
			this.moveId = moveId;
			this.mover = mover;
			this.step = step;
			this.sourceShardId = sourceShardId;
			this.targetShardId = targetShardId;
		}

		/** @return the move's id */
		public String getMoveId() {
			return this.moveId;
		}

		/** @return {@code basic} or {@code online} */
		public String getMover() {
			return this.mover;
		}

		/** @return the step ({@code mark}, {@code copy}, {@code catch_up}, {@code freeze}, ...) */
		public String getStep() {
			return this.step;
		}

		/** @return the shard the tenant leaves */
		public String getSourceShardId() {
			return this.sourceShardId;
		}

		/** @return the shard the tenant moves to */
		public String getTargetShardId() {
			return this.targetShardId;
		}

	}

}
