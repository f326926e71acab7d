package io.github.shardtenancy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Which tenants a {@link TenantTasks#start run} covers and how it runs. Immutable: each {@code with...} method returns
 * a copy. Thread-safe.
 *
 * <pre>{@code
 * TenantTaskOptions.named("nightly-invoices-2026-12-01").shard("shard-2").perShard(4).executor(executor)
 * }</pre>
 */
public final class TenantTaskOptions {

	/** The longest run name (the column of the completion marks). */
	public static final int MAX_NAME_LENGTH = 200;

	/** The lease of a named run unless {@link #lease(Duration)} says otherwise: 60 seconds. */
	public static final Duration DEFAULT_LEASE = Duration.ofSeconds(60);

	/** The shortest lease {@link #lease(Duration)} accepts: 300 milliseconds. */
	public static final Duration MIN_LEASE = Duration.ofMillis(300);

	private final String name;

	private final String shardId;

	private final List<String> tenants;

	private final int perShard;

	private final Executor executor;

	private final TenantTaskRetry retry;

	private final Duration lease;

	private final TenantTaskTransaction transaction;

	private TenantTaskOptions(String name, String shardId, List<String> tenants, int perShard, Executor executor,
			TenantTaskRetry retry, Duration lease, TenantTaskTransaction transaction) {
		this.name = name;
		this.shardId = shardId;
		this.tenants = tenants;
		this.perShard = perShard;
		this.executor = executor;
		this.retry = retry;
		this.lease = lease;
		this.transaction = transaction;
	}

	/**
	 * A resumable run: each tenant's completion is marked in its shard transaction, so that starting a run of the
	 * same name again (after a crash or {@link TenantTaskRun#stop()}) skips the tenants that completed. While it
	 * runs it holds the name's lease in the directory ({@link #lease(Duration)}): a second run of the name is refused
	 * until the lease ends or lapses.
	 * @param name the run's name, 1 to {@value #MAX_NAME_LENGTH} characters; never {@code null}
	 * @return options for every tenant, 1 tenant at a time per shard, on threads of the library
	 * @throws IllegalArgumentException if the name is blank or too long
	 */
	public static TenantTaskOptions named(String name) {
		Objects.requireNonNull(name, "name");
		if (name.isBlank() || name.length() > MAX_NAME_LENGTH) {
			throw new IllegalArgumentException("Run name must be 1 to " + MAX_NAME_LENGTH
					+ " characters and not blank, was '" + name + "'");
		}
		return new TenantTaskOptions(name, null, null, 1, null, null, DEFAULT_LEASE, null);
	}

	/**
	 * A run that records nothing: starting it again runs every tenant again.
	 * @return options for every tenant, 1 tenant at a time per shard, on threads of the library
	 */
	public static TenantTaskOptions unnamed() {
		return new TenantTaskOptions(null, null, null, 1, null, null, DEFAULT_LEASE, null);
	}

	/**
	 * @param shardId only the tenants placed on this shard when the run starts (they are still run wherever they are
	 * by then, once each); never {@code null}
	 * @return a copy with that restriction
	 */
	public TenantTaskOptions shard(String shardId) {
		return new TenantTaskOptions(this.name, Objects.requireNonNull(shardId, "shardId"), this.tenants,
				this.perShard, this.executor, this.retry, this.lease, this.transaction);
	}

	/**
	 * @param tenantIds only these tenants (duplicates count once; tenants not in the directory, or deleted, are
	 * reported failed); never {@code null}
	 * @return a copy with that restriction
	 */
	public TenantTaskOptions tenants(List<String> tenantIds) {
		List<String> copy = Collections.unmodifiableList(new ArrayList<>(Objects.requireNonNull(tenantIds, "tenantIds")));
		copy.forEach((tenantId) -> Objects.requireNonNull(tenantId, "tenantId"));
		return new TenantTaskOptions(this.name, this.shardId, copy, this.perShard, this.executor, this.retry,
				this.lease, this.transaction);
	}

	/**
	 * @param perShard the most tenants running at once per shard (by the shard each tenant had when the run started),
	 * at least 1
	 * @return a copy with that bound
	 * @throws IllegalArgumentException if {@code perShard} is below 1
	 */
	public TenantTaskOptions perShard(int perShard) {
		if (perShard < 1) {
			throw new IllegalArgumentException("perShard must be at least 1, was " + perShard);
		}
		return new TenantTaskOptions(this.name, this.shardId, this.tenants, perShard, this.executor, this.retry,
				this.lease, this.transaction);
	}

	/**
	 * @param executor runs the tenants (the run submits at most {@code perShard} tasks per shard to it); never
	 * {@code null}. Without one, the run uses daemon threads of its own, which end with it.
	 * @return a copy with that executor
	 */
	public TenantTaskOptions executor(Executor executor) {
		return new TenantTaskOptions(this.name, this.shardId, this.tenants, this.perShard,
				Objects.requireNonNull(executor, "executor"), this.retry, this.lease, this.transaction);
	}

	/**
	 * @param retry the retry each tenant's transaction runs in, usually {@code shardTenancyRetry::call}; never
	 * {@code null}. Without one, a {@code ShardTenancyRetry} with {@code RetrySettings.defaults()} on the tenancy's
	 * router and observer (with Spring Boot, the {@code ShardTenancyRetry} bean).
	 * @return a copy with that retry
	 */
	public TenantTaskOptions retry(TenantTaskRetry retry) {
		return new TenantTaskOptions(this.name, this.shardId, this.tenants, this.perShard, this.executor,
				Objects.requireNonNull(retry, "retry"), this.lease, this.transaction);
	}

	/**
	 * @param lease how long a named run's lease in the directory lasts without a renewal, at least
	 * {@link #MIN_LEASE}; never {@code null}. The run's heartbeat renews it every third of it. A run that has not
	 * renewed it within this time (its instance hangs, or cannot reach the directory) has lost it: it commits no
	 * further tenant, and another run of the name may start. Choose it longer than the pauses the instance may
	 * have and than the clock difference between instances (the lease's end is written by the holder's clock and
	 * compared with the starter's). Default {@link #DEFAULT_LEASE}. Unnamed runs hold no lease.
	 * @return a copy with that lease
	 * @throws IllegalArgumentException if the lease is shorter than {@link #MIN_LEASE}
	 */
	public TenantTaskOptions lease(Duration lease) {
		Objects.requireNonNull(lease, "lease");
		if (lease.compareTo(MIN_LEASE) < 0) {
			throw new IllegalArgumentException("lease must be at least " + MIN_LEASE + ", was " + lease);
		}
		return new TenantTaskOptions(this.name, this.shardId, this.tenants, this.perShard, this.executor, this.retry,
				lease, this.transaction);
	}

	/**
	 * @param transaction opens and ends each attempt's transaction (with Spring Boot, {@code TransactionalTenantTasks}
	 * sets one of the application's transaction manager); never {@code null}. Without one, the library's own
	 * transaction on a connection of {@link ShardTenancy#dataSource()}.
	 * @return a copy with that transaction
	 */
	public TenantTaskOptions transaction(TenantTaskTransaction transaction) {
		return new TenantTaskOptions(this.name, this.shardId, this.tenants, this.perShard, this.executor, this.retry,
				this.lease, Objects.requireNonNull(transaction, "transaction"));
	}

	/** @return the run's name, or {@code null} when unnamed */
	public String name() {
		return this.name;
	}

	/** @return the shard the run is restricted to, or {@code null} */
	public String shardId() {
		return this.shardId;
	}

	/** @return the tenants the run is restricted to, or {@code null} for every tenant */
	public List<String> tenantIds() {
		return this.tenants;
	}

	/** @return the most tenants running at once per shard */
	public int perShard() {
		return this.perShard;
	}

	/** @return the executor, or {@code null} for the run's own threads */
	public Executor executor() {
		return this.executor;
	}

	/** @return the retry, or {@code null} for the default one */
	public TenantTaskRetry retry() {
		return this.retry;
	}

	/** @return how long a named run's lease lasts without a renewal; never {@code null} */
	public Duration lease() {
		return this.lease;
	}

	/** @return the transaction of each attempt, or {@code null} for the library's own */
	public TenantTaskTransaction transaction() {
		return this.transaction;
	}

}
