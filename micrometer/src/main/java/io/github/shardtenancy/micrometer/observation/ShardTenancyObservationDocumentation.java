package io.github.shardtenancy.micrometer.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The library's observations, their names and key values, in Micrometer's documentation form. Names and keys are
 * lower case and dot separated; timers carry no unit in their names (Micrometer's naming conventions,
 * https://docs.micrometer.io/micrometer/reference/concepts/naming.html). The tenant is a high-cardinality key value
 * (spans only) unless the conventions are created with {@code tenantLowCardinality} ({@link DefaultConventions}).
 * Micrometer's {@code DefaultMeterObservationHandler} adds the {@code error} tag (the exception's simple class name,
 * or {@code none}) to the timers.
 */
public enum ShardTenancyObservationDocumentation implements ObservationDocumentation {

	/**
	 * One attempt of a retried unit of work (a routed transaction, typically): from the attempt's start to its commit
	 * or failure.
	 */
	TRANSACTION {
		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultConventions.Transaction.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return new KeyName[] { CommonKeys.SHARD, CommonKeys.OUTCOME, CommonKeys.REASON };
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return new KeyName[] { CommonKeys.TENANT, CommonKeys.ATTEMPT };
		}
	},

	/** A retried unit of work: all its attempts and the backoff waits between them. */
	RETRY {
		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultConventions.Retry.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return new KeyName[] { CommonKeys.OUTCOME, CommonKeys.REASON };
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return new KeyName[] { CommonKeys.TENANT, CommonKeys.ATTEMPTS };
		}
	},

	/** One step of a tenant move, on the mover's thread. */
	MOVE_STEP {
		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultConventions.MoveStep.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return new KeyName[] { CommonKeys.STEP, CommonKeys.MOVER, CommonKeys.SOURCE, CommonKeys.TARGET,
					CommonKeys.OUTCOME };
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return new KeyName[] { CommonKeys.TENANT, CommonKeys.MOVE_ID };
		}
	};

	/** The key names. */
	public enum CommonKeys implements KeyName {

		/** The tenant (high cardinality by default). */
		TENANT {
			@Override
			public String asString() {
				return "tenant";
			}
		},

		/** The shard the attempt was routed to; {@code none} if it borrowed no shard connection. */
		SHARD {
			@Override
			public String asString() {
				return "shard";
			}
		},

		/**
		 * How the work ended: {@code success}, {@code rejected} (a shard fence rejected the attempt), {@code error};
		 * for a retry also {@code exhausted}, {@code unsafe_to_rerun}, {@code not_retryable}; {@code unknown} if it
		 * ended without one (an interrupted backoff).
		 */
		OUTCOME {
			@Override
			public String asString() {
				return "outcome";
			}
		},

		/** The fence rejection's reason ({@code MOVED}, {@code STALE}, {@code FROZEN}, ...), or {@code none}. */
		REASON {
			@Override
			public String asString() {
				return "reason";
			}
		},

		/** The attempt's number, from 1. */
		ATTEMPT {
			@Override
			public String asString() {
				return "attempt";
			}
		},

		/** How many attempts the retried unit of work made. */
		ATTEMPTS {
			@Override
			public String asString() {
				return "attempts";
			}
		},

		/** The move step: {@code mark}, {@code copy}, {@code catch_up}, {@code freeze}, {@code final_catch_up}, ... */
		STEP {
			@Override
			public String asString() {
				return "step";
			}
		},

		/** {@code basic} (stop-the-world) or {@code online} (with change capture). */
		MOVER {
			@Override
			public String asString() {
				return "mover";
			}
		},

		/** The shard the tenant leaves. */
		SOURCE {
			@Override
			public String asString() {
				return "source";
			}
		},

		/** The shard the tenant moves to. */
		TARGET {
			@Override
			public String asString() {
				return "target";
			}
		},

		/** The move's id. */
		MOVE_ID {
			@Override
			public String asString() {
				return "move.id";
			}
		}

	}

}
