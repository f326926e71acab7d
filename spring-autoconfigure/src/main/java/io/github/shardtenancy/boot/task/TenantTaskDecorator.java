package io.github.shardtenancy.boot.task;

import io.github.shardtenancy.NoTenantBoundException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.micrometer.context.TenantThreadLocalAccessor;
import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ContextSnapshotFactory;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.support.ContextPropagatingTaskDecorator;

/**
 * Runs each task with the tenant of the code that submitted it: Spring's {@link ContextPropagatingTaskDecorator} with
 * a context-propagation snapshot of exactly one value, the tenant bound by {@link TenantContext} (through
 * {@link TenantThreadLocalAccessor}).
 *
 * <ul>
 * <li>The tenant is captured when the task is submitted (on the submitting thread), bound while it runs, and the
 * worker's own binding is restored afterwards.</li>
 * <li>A task submitted with no tenant runs with no tenant, whatever the pooled thread had bound before: a pooled
 * thread never lends a previous task's tenant. Its first tenant work (a shard connection) then fails with
 * {@link NoTenantBoundException} before any statement runs, so it writes nothing.</li>
 * <li>{@link #requiringTenant()} refuses the submission itself with {@link NoTenantBoundException} (the caller of
 * {@code execute}, {@code submit} or an {@code @Async} method gets it at once). Use it for executors that only run
 * tenant work; the auto-configured decorator propagates instead, because Spring and Boot also hand tenant-free work
 * to the same executors and schedulers (scheduled jobs registered at start-up, bootstrap tasks, asynchronous
 * requests without a tenant).</li>
 * <li>Work started from a transaction's after-commit callback runs on the committing thread, where the transaction's
 * tenant is still bound: the task gets that tenant.</li>
 * </ul>
 *
 * <p>Thread-safe; one instance serves any number of executors. Boot applies every {@link TaskDecorator} bean to its
 * auto-configured executor and schedulers, composing several.
 */
public final class TenantTaskDecorator implements TaskDecorator {

	private static final ContextSnapshotFactory SNAPSHOTS = ContextSnapshotFactory.builder()
		.contextRegistry(new ContextRegistry().registerThreadLocalAccessor(new TenantThreadLocalAccessor()))
		.captureKeyPredicate(TenantThreadLocalAccessor.KEY::equals)
		.clearMissing(true)
		.build();

	private final ContextPropagatingTaskDecorator delegate = new ContextPropagatingTaskDecorator(SNAPSHOTS);

	private final boolean tenantRequired;

	private TenantTaskDecorator(boolean tenantRequired) {
		this.tenantRequired = tenantRequired;
	}

	/** @return a decorator that carries the submitter's tenant, or none, to the task */
	public static TenantTaskDecorator propagating() {
		return new TenantTaskDecorator(false);
	}

	/** @return a decorator that carries the submitter's tenant and refuses a submission made with no tenant bound */
	public static TenantTaskDecorator requiringTenant() {
		return new TenantTaskDecorator(true);
	}

	/** @return whether a submission with no tenant bound is refused */
	public boolean isTenantRequired() {
		return this.tenantRequired;
	}

	/**
	 * @param runnable the task, on the submitting thread
	 * @return the task wrapped to run with the submitter's tenant
	 * @throws NoTenantBoundException if {@link #isTenantRequired()} and no tenant is bound on the submitting thread
	 */
	@Override
	public Runnable decorate(Runnable runnable) {
		if (this.tenantRequired) {
			TenantContext.require("a task submitted to an executor that runs tenant work only");
		}
		return this.delegate.decorate(runnable);
	}

}
