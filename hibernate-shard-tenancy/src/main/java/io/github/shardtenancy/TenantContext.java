package io.github.shardtenancy;

import java.util.concurrent.Callable;

import java.util.ServiceLoader;

import io.github.shardtenancy.spi.ShardTenancyProvider;

/**
 * Binds the current tenant to the current thread for a scope. Hibernate asks for it when it opens a session (through
 * {@link ShardTenancy#tenantResolver()}), and the connection provider routes by it.
 *
 * <p>Two forms:
 * <pre>{@code
 * Order order = TenantContext.callAs("acme", () -> orders.findById(id));
 *
 * try (TenantContext.Scope scope = TenantContext.bind("acme")) {
 *     orders.save(new Order(...));
 * }
 * }</pre>
 *
 * <p>Scopes nest: closing a scope restores the tenant bound before it (or none). The binding is per thread and is
 * <em>not</em> inherited by other threads: a task handed to an executor must bind the tenant itself (capture
 * {@link #current()} when submitting, {@link #callAs} in the task).
 * Binding a different tenant while a shard connection of another tenant is held on this thread (that is, inside its
 * transaction) raises {@link TenantSwitchedException}; binding the same tenant again is allowed.
 *
 * <p>Thread-safety: all methods are safe to call from any thread and affect only the calling thread.
 */
public final class TenantContext {

	/**
	 * The SLF4J MDC key of the tenant while a transaction runs: from the moment a shard connection of the tenant is
	 * borrowed on a thread until the thread's last one is released, after which the MDC's previous value is put back.
	 */
	public static final String MDC_TENANT = "shardTenancy.tenant";

	/** The SLF4J MDC key of the shard while a transaction runs, for the same span of time as {@link #MDC_TENANT}. */
	public static final String MDC_SHARD = "shardTenancy.shard";

	private static final ThreadLocal<String> CURRENT = new ThreadLocal<>();

	private TenantContext() {
	}

	/**
	 * Binds a tenant until the returned scope is closed.
	 * @param tenantId the tenant, validated by {@link TenantIds#requireValid(String)}
	 * @return the scope to close, which restores the previous binding
	 * @throws InvalidTenantIdException if the id breaks the tenant id rule
	 * @throws TenantSwitchedException if another tenant's shard connection is held on this thread
	 */
	public static Scope bind(String tenantId) {
		TenantIds.requireValid(tenantId);
		Provider.INSTANCE.checkTenantSwitch(tenantId);
		String previous = CURRENT.get();
		CURRENT.set(tenantId);
		return new Scope(tenantId, previous);
	}

	/**
	 * Runs with no tenant bound until the returned scope is closed, whatever was bound before; closing restores it.
	 * Used by thread-hopping code (a task run on a pooled thread must not inherit the tenant of the thread's last
	 * task), and by code that must do tenant-free work inside a tenant's scope.
	 * @return the scope to close, which restores the previous binding
	 */
	public static Scope unbind() {
		String previous = CURRENT.get();
		CURRENT.remove();
		return new Scope(null, previous);
	}

	/**
	 * Runs work as a tenant and returns its result.
	 * @param tenantId the tenant, validated
	 * @param work the work; its checked exceptions are rethrown unchanged
	 * @param <T> the result type
	 * @return what the work returned
	 * @throws Exception whatever the work throws
	 * @throws InvalidTenantIdException if the id breaks the tenant id rule
	 * @throws TenantSwitchedException if another tenant's shard connection is held on this thread
	 */
	public static <T> T callAs(String tenantId, Callable<T> work) throws Exception {
		try (Scope scope = bind(tenantId)) {
			return work.call();
		}
	}

	/**
	 * Runs work as a tenant.
	 * @param tenantId the tenant, validated
	 * @param work the work
	 * @throws InvalidTenantIdException if the id breaks the tenant id rule
	 * @throws TenantSwitchedException if another tenant's shard connection is held on this thread
	 */
	public static void runAs(String tenantId, Runnable work) {
		try (Scope scope = bind(tenantId)) {
			work.run();
		}
	}

	/** @return the tenant bound on this thread, or {@code null} if none */
	public static String current() {
		return CURRENT.get();
	}

	/**
	 * @param what the work that needs a tenant, named in the exception message
	 * @return the tenant bound on this thread, never {@code null}
	 * @throws NoTenantBoundException if none is bound
	 */
	public static String require(String what) {
		String tenant = CURRENT.get();
		if (tenant == null) {
			throw new NoTenantBoundException(what);
		}
		return tenant;
	}

	/**
	 * A tenant binding; closing it restores the binding that was in force before. Close it on the thread that opened
	 * it, in the reverse order of opening (try-with-resources does both).
	 */
	public static final class Scope implements AutoCloseable {

		private final String tenantId;

		private final String previous;

		private boolean closed;

		private Scope(String tenantId, String previous) {
			this.tenantId = tenantId;
			this.previous = previous;
		}

		/** @return the tenant this scope bound, or {@code null} for a scope opened by {@link TenantContext#unbind()} */
		public String tenantId() {
			return this.tenantId;
		}

		@Override
		public void close() {
			if (!this.closed) {
				this.closed = true;
				if (this.previous == null) {
					CURRENT.remove();
				}
				else {
					CURRENT.set(this.previous);
				}
			}
		}

	}

	/** The library's implementation, which knows the connections open on this thread; loaded once, lazily. */
	private static final class Provider {

		static final ShardTenancyProvider INSTANCE = ServiceLoader
			.load(ShardTenancyProvider.class, TenantContext.class.getClassLoader())
			.findFirst()
			.orElseThrow(() -> new ShardTenancyConfigurationException("META-INF/services", "No "
					+ ShardTenancyProvider.class.getName()
					+ " found: the hibernate-shard-tenancy jar's META-INF/services entry is missing (keep it when repackaging)"));

	}

}
