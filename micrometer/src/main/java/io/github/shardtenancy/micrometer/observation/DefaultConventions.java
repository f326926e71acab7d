package io.github.shardtenancy.micrometer.observation;

import io.github.shardtenancy.micrometer.observation.ShardTenancyObservationDocumentation.CommonKeys;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The default conventions of the library's observations ({@link ShardTenancyObservationDocumentation}). Each puts the
 * tenant among the high-cardinality key values (on spans, not on meters) unless created with
 * {@code tenantLowCardinality = true}: tenants are usually too many to be a meter dimension. Immutable and
 * thread-safe.
 */
public final class DefaultConventions {

	private static final String NONE = "none";

	private DefaultConventions() {
	}

	private static String orNone(String value) {
		return (value != null) ? value : NONE;
	}

	private static KeyValue tenant(ShardTenancyObservationContext context) {
		return CommonKeys.TENANT.withValue(orNone(context.getTenantId()));
	}

	private static KeyValues outcome(ShardTenancyObservationContext context) {
		String outcome = context.getOutcome();
		return KeyValues.of(CommonKeys.OUTCOME.withValue((outcome != null) ? outcome : "unknown"),
				CommonKeys.REASON.withValue(orNone(context.getReason())));
	}

	/** The convention of {@code shardtenancy.transaction}, one attempt of a retried unit of work. */
	public static class Transaction implements ObservationConvention<ShardTenancyObservationContext.TransactionAttempt> {

		private final boolean tenantLowCardinality;

		/** Tenant as a high-cardinality key value. */
		public Transaction() {
			this(false);
		}

		/** @param tenantLowCardinality whether the tenant is a low-cardinality key value (a meter tag) */
		public Transaction(boolean tenantLowCardinality) {
			this.tenantLowCardinality = tenantLowCardinality;
		}

		@Override
		public String getName() {
			return "shardtenancy.transaction";
		}

		@Override
		public String getContextualName(ShardTenancyObservationContext.TransactionAttempt context) {
			return "shardtenancy transaction";
		}

		@Override
		public KeyValues getLowCardinalityKeyValues(ShardTenancyObservationContext.TransactionAttempt context) {
			KeyValues values = outcome(context).and(CommonKeys.SHARD.withValue(orNone(context.getShardId())));
			return this.tenantLowCardinality ? values.and(tenant(context)) : values;
		}

		@Override
		public KeyValues getHighCardinalityKeyValues(ShardTenancyObservationContext.TransactionAttempt context) {
			KeyValues values = KeyValues.of(CommonKeys.ATTEMPT.withValue(Integer.toString(context.getAttempt())));
			return this.tenantLowCardinality ? values : values.and(tenant(context));
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof ShardTenancyObservationContext.TransactionAttempt;
		}

	}

	/** The convention of {@code shardtenancy.retry}, a retried unit of work. */
	public static class Retry implements ObservationConvention<ShardTenancyObservationContext.Retry> {

		private final boolean tenantLowCardinality;

		/** Tenant as a high-cardinality key value. */
		public Retry() {
			this(false);
		}

		/** @param tenantLowCardinality whether the tenant is a low-cardinality key value (a meter tag) */
		public Retry(boolean tenantLowCardinality) {
			this.tenantLowCardinality = tenantLowCardinality;
		}

		@Override
		public String getName() {
			return "shardtenancy.retry";
		}

		@Override
		public String getContextualName(ShardTenancyObservationContext.Retry context) {
			return "shardtenancy retry";
		}

		@Override
		public KeyValues getLowCardinalityKeyValues(ShardTenancyObservationContext.Retry context) {
			KeyValues values = outcome(context);
			return this.tenantLowCardinality ? values.and(tenant(context)) : values;
		}

		@Override
		public KeyValues getHighCardinalityKeyValues(ShardTenancyObservationContext.Retry context) {
			KeyValues values = KeyValues.of(CommonKeys.ATTEMPTS.withValue(Integer.toString(context.getAttempts())));
			return this.tenantLowCardinality ? values : values.and(tenant(context));
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof ShardTenancyObservationContext.Retry;
		}

	}

	/** The convention of {@code shardtenancy.move.step}, one step of a tenant move. */
	public static class MoveStep implements ObservationConvention<ShardTenancyObservationContext.MoveStep> {

		private final boolean tenantLowCardinality;

		/** Tenant as a high-cardinality key value. */
		public MoveStep() {
			this(false);
		}

		/** @param tenantLowCardinality whether the tenant is a low-cardinality key value (a meter tag) */
		public MoveStep(boolean tenantLowCardinality) {
			this.tenantLowCardinality = tenantLowCardinality;
		}

		@Override
		public String getName() {
			return "shardtenancy.move.step";
		}

		@Override
		public String getContextualName(ShardTenancyObservationContext.MoveStep context) {
			return "shardtenancy move " + context.getStep();
		}

		@Override
		public KeyValues getLowCardinalityKeyValues(ShardTenancyObservationContext.MoveStep context) {
			String outcome = context.getOutcome();
			KeyValues values = KeyValues.of(CommonKeys.STEP.withValue(context.getStep()),
					CommonKeys.MOVER.withValue(context.getMover()),
					CommonKeys.SOURCE.withValue(context.getSourceShardId()),
					CommonKeys.TARGET.withValue(context.getTargetShardId()),
					CommonKeys.OUTCOME.withValue((outcome != null) ? outcome : "unknown"));
			return this.tenantLowCardinality ? values.and(tenant(context)) : values;
		}

		@Override
		public KeyValues getHighCardinalityKeyValues(ShardTenancyObservationContext.MoveStep context) {
			KeyValues values = KeyValues.of(CommonKeys.MOVE_ID.withValue(context.getMoveId()));
			return this.tenantLowCardinality ? values : values.and(tenant(context));
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof ShardTenancyObservationContext.MoveStep;
		}

	}

}
