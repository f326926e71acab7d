package io.github.shardtenancy.internal;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

import javax.sql.DataSource;

import io.github.shardtenancy.ReconciliationReport;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.TenantRouter;
import io.github.shardtenancy.TenantTasks;
import io.github.shardtenancy.internal.tasks.DefaultTenantTasks;
import io.github.shardtenancy.retry.RetryAttempts;
import io.github.shardtenancy.spi.FenceDialect;
import io.github.shardtenancy.spi.RouteFeed;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import org.hibernate.context.spi.CurrentTenantIdentifierResolver;
import org.hibernate.engine.jdbc.connections.spi.MultiTenantConnectionProvider;
import org.jspecify.annotations.Nullable;

/** The library's {@link ShardTenancy}: the API over a {@link Wiring}. Thread-safe. */
final class DefaultShardTenancy implements ShardTenancy {

	private final Wiring wiring;

	private volatile DefaultTenantTasks tenantTasks;

	DefaultShardTenancy(Wiring wiring) {
		this.wiring = wiring;
		Internals.register(this, wiring);
	}

	@Override
	public void start() {
		this.wiring.start();
	}

	@Override
	public void prepareShards() {
		this.wiring.prepareShards();
	}

	@Override
	public TenantRouter router() {
		return this.wiring.router();
	}

	@Override
	public ShardTopology topology() {
		return this.wiring.topology();
	}

	@Override
	public FenceDialect fenceDialect(String shardId) {
		return this.wiring.topology().shard(shardId).dialect();
	}

	@Override
	public TenantMover mover() {
		return this.wiring.mover();
	}

	@Override
	public TenantAdmin admin() {
		return this.wiring.admin();
	}

	@Override
	public io.github.shardtenancy.ReferenceTables referenceTables() {
		return this.wiring.referenceReplication();
	}

	@Override
	public ReconciliationReport reconcile() {
		return this.wiring.reconciler().run();
	}

	@Override
	public Optional<ReconciliationReport> lastReconciliation() {
		return this.wiring.lastReconciliation();
	}

	@Override
	public DataSource directoryDataSource() {
		return this.wiring.directoryDataSource();
	}

	@Override
	public RouteFeed routeFeed() {
		return this.wiring.router();
	}

	@Override
	public MultiTenantConnectionProvider<String> connectionProvider() {
		return this.wiring.connectionProvider();
	}

	@Override
	public CurrentTenantIdentifierResolver<String> tenantResolver() {
		return this.wiring.tenantResolver();
	}

	@Override
	public long nextId() {
		this.wiring.ids().start();
		return this.wiring.ids().next();
	}

	@Override
	public int nextIntId() {
		return this.wiring.ids().nextInt();
	}

	@Override
	public int nextIntId(String table) {
		return this.wiring.ids().nextInt(table);
	}

	@Override
	public long assignId(Consumer<? super @Nullable Long> setter) {
		Objects.requireNonNull(setter, "setter");
		long id = nextId();
		setter.accept(id);
		RetryAttempts.onRollback(() -> setter.accept(null));
		return id;
	}

	@Override
	public int assignIntId(String table, Consumer<? super @Nullable Integer> setter) {
		Objects.requireNonNull(setter, "setter");
		int id = nextIntId(table);
		setter.accept(id);
		RetryAttempts.onRollback(() -> setter.accept(null));
		return id;
	}

	@Override
	public DataSource dataSource() {
		return this.wiring.dataSource();
	}

	@Override
	public ShardTenancyObserver observer() {
		return this.wiring.observer();
	}

	@Override
	public void addObserver(ShardTenancyObserver observer) {
		this.wiring.router().addObserver(Objects.requireNonNull(observer, "observer"));
	}

	@Override
	public boolean removeObserver(ShardTenancyObserver observer) {
		return this.wiring.router().removeObserver(observer);
	}

	@Override
	public io.github.shardtenancy.TenantLoads load() {
		return this.wiring.load();
	}

	@Override
	public io.github.shardtenancy.Rebalancer rebalancer() {
		return this.wiring.rebalancer();
	}

	/**
	 * Interrupts the moves running on the executor the builder created (they resume or abort later from their last
	 * recorded step), stops the router, and closes the pools the builder created. Idempotent.
	 */
	@Override
	public void close() {
		DefaultTenantTasks tasks = this.tenantTasks;
		if (tasks != null) {
			tasks.close();
		}
		this.wiring.close();
	}

	@Override
	public io.github.shardtenancy.Instances instances() {
		return this.wiring.instances();
	}

	@Override
	public io.github.shardtenancy.DualRead dualRead() {
		return this.wiring.dualRead();
	}

	@Override
	public TenantTasks tenantTasks() {
		DefaultTenantTasks tasks = this.tenantTasks;
		if (tasks == null) {
			synchronized (this) {
				tasks = this.tenantTasks;
				if (tasks == null) {
					tasks = new DefaultTenantTasks(admin(), router(), topology(), dataSource(), directoryDataSource(),
							observer(), this::fenceDialect);
					this.tenantTasks = tasks;
				}
			}
		}
		return tasks;
	}

}
