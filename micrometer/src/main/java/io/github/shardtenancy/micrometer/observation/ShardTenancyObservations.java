package io.github.shardtenancy.micrometer.observation;

import java.util.Objects;
import java.util.function.Supplier;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;

/**
 * Micrometer observations of the library's work, for tracing and timing: {@code shardtenancy.retry} around each
 * retried unit of work, {@code shardtenancy.transaction} around each of its attempts (a child of the retry), and
 * {@code shardtenancy.move.step} around each step of a move ({@link ShardTenancyObservationDocumentation} lists their
 * key values). Each observation is started, and its scope opened, on the thread that runs the work, so that it is the
 * parent of observations made inside (JDBC, HTTP clients) and a tracer puts its trace and span ids in the logging MDC.
 * With Micrometer's {@code DefaultMeterObservationHandler} each also becomes a timer of the same name, tagged with the
 * low-cardinality key values.
 *
 * <p>Add it to the tenancy as an observer ({@link ShardTenancy#addObserver}); the Spring Boot module does that when
 * the application has an {@link ObservationRegistry}. With a no-op registry nothing is created. Conventions: a
 * convention registered on the registry for one of the contexts ({@link ShardTenancyObservationContext}) wins, then
 * the custom conventions given here, then {@link DefaultConventions}.
 *
 * <p>Thread-safe; a scope it returns belongs to the thread that opened it.
 */
public final class ShardTenancyObservations implements ShardTenancyObserver {

	private final ObservationRegistry registry;

	private final ObservationConvention<ShardTenancyObservationContext.TransactionAttempt> transactionConvention;

	private final ObservationConvention<ShardTenancyObservationContext.Retry> retryConvention;

	private final ObservationConvention<ShardTenancyObservationContext.MoveStep> moveStepConvention;

	/**
	 * Observations with the default conventions, the tenant a high-cardinality key value.
	 * @param registry the registry; never {@code null}
	 * @throws NullPointerException if {@code registry} is {@code null}
	 */
	public ShardTenancyObservations(ObservationRegistry registry) {
		this(registry, false);
	}

	/**
	 * Observations with the default conventions.
	 * @param registry the registry; never {@code null}
	 * @param tenantLowCardinality whether the tenant is a low-cardinality key value, and so a meter tag (only for
	 * applications with few tenants)
	 * @throws NullPointerException if {@code registry} is {@code null}
	 */
	public ShardTenancyObservations(ObservationRegistry registry, boolean tenantLowCardinality) {
		this(registry, new DefaultConventions.Transaction(tenantLowCardinality),
				new DefaultConventions.Retry(tenantLowCardinality), new DefaultConventions.MoveStep(tenantLowCardinality));
	}

	/**
	 * Observations with the given conventions.
	 * @param registry the registry; never {@code null}
	 * @param transactionConvention the convention of {@code shardtenancy.transaction}; never {@code null}
	 * @param retryConvention the convention of {@code shardtenancy.retry}; never {@code null}
	 * @param moveStepConvention the convention of {@code shardtenancy.move.step}; never {@code null}
	 * @throws NullPointerException if an argument is {@code null}
	 */
	public ShardTenancyObservations(ObservationRegistry registry,
			ObservationConvention<ShardTenancyObservationContext.TransactionAttempt> transactionConvention,
			ObservationConvention<ShardTenancyObservationContext.Retry> retryConvention,
			ObservationConvention<ShardTenancyObservationContext.MoveStep> moveStepConvention) {
		this.registry = Objects.requireNonNull(registry, "registry");
		this.transactionConvention = Objects.requireNonNull(transactionConvention, "transactionConvention");
		this.retryConvention = Objects.requireNonNull(retryConvention, "retryConvention");
		this.moveStepConvention = Objects.requireNonNull(moveStepConvention, "moveStepConvention");
	}

	@Override
	public Scope retryStarted(String tenantId) {
		if (this.registry.isNoop()) {
			return Scope.NONE;
		}
		return open(ShardTenancyObservationDocumentation.RETRY, this.retryConvention,
				() -> new ShardTenancyObservationContext.Retry(tenantId));
	}

	@Override
	public Scope attemptStarted(String tenantId, int attempt) {
		if (this.registry.isNoop()) {
			return Scope.NONE;
		}
		Observation parent = this.registry.getCurrentObservation();
		if (parent != null && parent.getContext() instanceof ShardTenancyObservationContext.Retry retry) {
			retry.attemptStarted();
		}
		return open(ShardTenancyObservationDocumentation.TRANSACTION, this.transactionConvention,
				() -> new ShardTenancyObservationContext.TransactionAttempt(tenantId, attempt));
	}

	@Override
	public Scope moveStepStarted(String moveId, String tenantId, String mover, String step, String sourceShardId,
			String targetShardId) {
		if (this.registry.isNoop()) {
			return Scope.NONE;
		}
		return open(ShardTenancyObservationDocumentation.MOVE_STEP, this.moveStepConvention,
				() -> new ShardTenancyObservationContext.MoveStep(moveId, tenantId, mover, step, sourceShardId,
						targetShardId));
	}

	private <C extends ShardTenancyObservationContext> Scope open(ShardTenancyObservationDocumentation documentation,
			ObservationConvention<C> convention, Supplier<C> context) {
		C created = context.get();
		Observation observation = documentation.observation(null, convention, () -> created, this.registry).start();
		return new ObservationScope(observation, created, observation.openScope());
	}

	/** The observation of one unit of work, and its scope on the thread that runs it. */
	private record ObservationScope(Observation observation, ShardTenancyObservationContext context,
			Observation.Scope scope) implements Scope {

		@Override
		public void routed(String shardId) {
			if (this.context instanceof ShardTenancyObservationContext.TransactionAttempt attempt) {
				attempt.routed(shardId);
			}
		}

		@Override
		public void outcome(String outcome, String reason, Throwable failure) {
			this.context.outcome(outcome, reason);
			if (failure != null) {
				this.observation.error(failure);
			}
		}

		@Override
		public void close() {
			try {
				this.scope.close();
			}
			finally {
				this.observation.stop();
			}
		}

	}

}
