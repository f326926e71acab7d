package io.github.shardtenancy.micrometer.context;

import io.github.shardtenancy.TenantContext;
import io.micrometer.context.ThreadLocalAccessor;

/**
 * Micrometer context-propagation's view of the tenant bound by {@link TenantContext}, so that a
 * {@link io.micrometer.context.ContextSnapshot} captured on one thread carries the tenant to the thread that restores
 * it (an executor's worker, a reactive operator, Spring's {@code ContextPropagatingTaskDecorator}).
 *
 * <p>Registered through {@code META-INF/services/io.micrometer.context.ThreadLocalAccessor}, so
 * {@link io.micrometer.context.ContextRegistry#getInstance()} finds it without configuration. Its key is
 * {@value #KEY}.
 *
 * <p>Setting a value binds the tenant ({@link TenantContext#bind}, so an invalid id or a switch while another
 * tenant's connection is held on the thread is refused as usual); {@link #setValue()} (the snapshot holds no tenant)
 * leaves the thread with no tenant, so a pooled thread never keeps the tenant of its previous task; restoring puts
 * back exactly what was bound before. Stateless and thread-safe.
 */
public final class TenantThreadLocalAccessor implements ThreadLocalAccessor<String> {

	/** The key under which the tenant is captured. */
	public static final String KEY = "shardtenancy.tenant";

	@Override
	public Object key() {
		return KEY;
	}

	/** @return the tenant bound on this thread, or {@code null} */
	@Override
	public String getValue() {
		return TenantContext.current();
	}

	/**
	 * @param value the tenant to bind
	 * @throws io.github.shardtenancy.InvalidTenantIdException if the id breaks the tenant id rule
	 * @throws io.github.shardtenancy.TenantSwitchedException if another tenant's shard connection is held on this
	 * thread
	 */
	@Override
	public void setValue(String value) {
		// A scope only remembers what to restore; the snapshot restores through restore(previous) instead.
		TenantContext.bind(value);
	}

	@Override
	public void setValue() {
		TenantContext.unbind();
	}

	@Override
	public void restore(String previousValue) {
		TenantContext.bind(previousValue);
	}

	@Override
	public void restore() {
		TenantContext.unbind();
	}

}
