package io.github.shardtenancy.boot;

import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.shardtenancy.RebalanceProposal;
import io.github.shardtenancy.RebalanceResult;
import io.github.shardtenancy.RebalanceSettings;
import io.github.shardtenancy.Rebalancer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.task.TaskExecutor;

/**
 * The rebalancer's runs in a Spring Boot application: proposals (scheduled with
 * {@code shard-tenancy.rebalancer.enabled=true}, or asked for), and executions, which happen only with
 * {@code shard-tenancy.rebalancer.execute=true}, one at a time, on a task executor. Keeps the last proposal and the
 * last execution's result for the {@code shardtenancyload} endpoint. Thread-safe.
 */
public final class RebalancerRuns {

	private static final Logger log = LoggerFactory.getLogger(RebalancerRuns.class);

	private final Rebalancer rebalancer;

	private final RebalanceSettings settings;

	private final boolean enabled;

	private final boolean execute;

	private final TaskExecutor executor;

	private final AtomicBoolean executing = new AtomicBoolean();

	private volatile @Nullable RebalanceProposal lastProposal;

	private volatile @Nullable RebalanceResult lastResult;

	private volatile @Nullable Instant lastResultAt;

	/**
	 * @param rebalancer the core's rebalancer; never {@code null}
	 * @param settings the {@code shard-tenancy.rebalancer.*} settings with the move settings; never {@code null}
	 * @param enabled {@code shard-tenancy.rebalancer.enabled}
	 * @param execute {@code shard-tenancy.rebalancer.execute}
	 * @param executor runs the executions the endpoint starts; never {@code null}
	 */
	public RebalancerRuns(Rebalancer rebalancer, RebalanceSettings settings, boolean enabled, boolean execute,
			TaskExecutor executor) {
		this.rebalancer = Objects.requireNonNull(rebalancer, "rebalancer");
		this.settings = Objects.requireNonNull(settings, "settings");
		this.enabled = enabled;
		this.execute = execute;
		this.executor = Objects.requireNonNull(executor, "executor");
	}

	/** @return the settings proposals and executions use */
	public RebalanceSettings settings() {
		return this.settings;
	}

	/** @return whether executions are allowed (both {@code enabled} and {@code execute} are on) */
	public boolean executionAllowed() {
		return this.enabled && this.execute;
	}

	/** @return whether an execution is running now */
	public boolean executing() {
		return this.executing.get();
	}

	/**
	 * Proposes (moves nothing) and keeps the proposal as the last one.
	 * @return the proposal
	 * @throws io.github.shardtenancy.DirectoryUnavailableException if the directory cannot be read
	 */
	public RebalanceProposal propose() {
		RebalanceProposal proposal = this.rebalancer.propose(this.settings);
		this.lastProposal = proposal;
		return proposal;
	}

	/** @return the last proposal, or {@code null} before the first */
	public @Nullable RebalanceProposal lastProposal() {
		return this.lastProposal;
	}

	/** @return the last execution's result, or {@code null} before the first ended */
	public @Nullable RebalanceResult lastResult() {
		return this.lastResult;
	}

	/** @return when the last execution ended, or {@code null} */
	public @Nullable Instant lastResultAt() {
		return this.lastResultAt;
	}

	/**
	 * The scheduled run: proposes and logs the proposal; executes it on the calling thread when executions are
	 * allowed, no other runs and the shards are not balanced.
	 */
	void scheduledRun() {
		RebalanceProposal proposal = propose();
		log.info("Rebalancer ({}, band {}): {} moves proposed, median {} -> {}, balanced now {}, after {}{}",
				proposal.measure(), proposal.band(), proposal.moves().size(), proposal.medianBefore(),
				proposal.medianAfter(), proposal.balancedBefore(), proposal.balancedAfter(),
				executionAllowed() ? "" : " (dry run: shard-tenancy.rebalancer.execute is false)");
		if (executionAllowed() && !proposal.moves().isEmpty() && this.executing.compareAndSet(false, true)) {
			try {
				run(proposal);
			}
			finally {
				this.executing.set(false);
			}
		}
	}

	/**
	 * Proposes and starts executing the proposal on the task executor.
	 * @return the proposal being executed
	 * @throws IllegalStateException if executions are not allowed (naming the properties) or one is running
	 * @throws io.github.shardtenancy.DirectoryUnavailableException if the directory cannot be read
	 */
	public RebalanceProposal startExecution() {
		if (!executionAllowed()) {
			throw new IllegalStateException("Rebalancing is not executed here: shard-tenancy.rebalancer.enabled is "
					+ this.enabled + " and shard-tenancy.rebalancer.execute is " + this.execute
					+ "; set both to true to let the rebalancer move tenants");
		}
		if (!this.executing.compareAndSet(false, true)) {
			throw new IllegalStateException("A rebalancing execution is running; wait for it to end");
		}
		try {
			RebalanceProposal proposal = propose();
			this.executor.execute(() -> {
				try {
					run(proposal);
				}
				finally {
					this.executing.set(false);
				}
			});
			return proposal;
		}
		catch (RuntimeException ex) {
			this.executing.set(false);
			throw ex;
		}
	}

	private void run(RebalanceProposal proposal) {
		try {
			RebalanceResult result = this.rebalancer.execute(proposal, this.settings);
			this.lastResult = result;
			this.lastResultAt = Instant.now();
			log.info("Rebalancer executed {} moves ({} skipped, {} failed, at most {} at once); balanced: {}",
					result.moved().size(), result.skipped().size(), result.failed().size(), result.maxConcurrent(),
					result.balanced());
		}
		catch (RuntimeException ex) {
			log.warn("Rebalancer execution failed: {}", ex.getMessage());
		}
	}

}
