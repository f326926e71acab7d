package io.github.shardtenancy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

import javax.sql.DataSource;

import io.github.shardtenancy.spi.FenceDialect;
import io.github.shardtenancy.spi.RouteFeed;
import io.github.shardtenancy.spi.ShardMigrator;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import org.hibernate.cfg.MultiTenancySettings;
import org.hibernate.context.spi.CurrentTenantIdentifierResolver;
import org.hibernate.engine.jdbc.connections.spi.MultiTenantConnectionProvider;
import org.jspecify.annotations.Nullable;

/**
 * The entry point: wires the directory, the shards, the router, the Hibernate integration, the mover, tenant and
 * shard administration and reconciliation, without Spring.
 *
 * <pre>{@code
 * try (ShardTenancy tenancy = ShardTenancy.builder()
 *         .directory(directoryDataSource)
 *         .shard("shard-1", shard1Config)
 *         .shard("shard-2", shard2Config)
 *         .tenantTables(List.of(new TenantTable("orders", "tenant_id")))
 *         .build()) {
 *     tenancy.start();
 *     tenancy.admin().create("acme");
 *     SessionFactory sessionFactory = new Configuration()
 *         .addProperties(tenancy.hibernateSettings()) ...
 * }
 * }</pre>
 *
 * <p>The directory and shard schemas (the directory changelog; the fence changelog and the application's tables on
 * every shard) must exist before {@link #start()}: migrations are the application's (the Liquibase module runs
 * them). Shards registered at runtime are migrated with the {@link ShardMigrator} given to the builder.
 *
 * <p>Implemented by the library (applications build it, never implement it). Thread-safe once built. {@link #close()} stops the router and the moves on the executor it created, and closes
 * the pools the builder created (pools passed in as {@link DataSource}s are left open).
 */
public interface ShardTenancy extends AutoCloseable {

	/** {@code hibernate.connection.handling_mode}. */
	String CONNECTION_HANDLING = "hibernate.connection.handling_mode";

	/**
	 * The connection handling mode of {@link #hibernateSettings()}: acquire at first use, release at the end of each
	 * transaction, so that every transaction borrows, fences and releases its own shard connection.
	 */
	String HANDLING_MODE = "DELAYED_ACQUISITION_AND_RELEASE_AFTER_TRANSACTION";

	/** @return a new builder; never {@code null} */
	static ShardTenancyBuilder builder() {
		return new ShardTenancyBuilder();
	}

	/**
	 * Loads the directory (one streamed snapshot) and starts the router's background sync and the instance heartbeat
	 * ({@link #instances()}; a heartbeat failure is logged, never thrown), loads the slot table,
	 * records the configured shards ACTIVE in the shard registry (unless {@link ShardTenancyBuilder#registerShards(boolean)} is
	 * off; a shard that cannot be recorded, such as a retired one, is logged and skipped), and prepares the shards
	 * ({@link #prepareShards()}, unless {@link ShardTenancyBuilder#prepareShardsOnStart(boolean)} is off). Call it once the
	 * directory and shard schemas exist. Calling it again does not restart the router, but records and prepares again
	 * (both idempotent).
	 * @throws DirectoryUnavailableException if the directory cannot be read or written; the router is then not ready
	 * and its sync keeps trying
	 * @throws ShardTenancyConfigurationException as {@link #prepareShards()}
	 */
	void start();

	/**
	 * Installs on every tenant table of every shard the fence's per-row write check (with row-level security when
	 * {@link ShardTenancyBuilder#rowLevelSecurity(boolean)} is on, the default, then checks the shard's role is subject to
	 * it, logging a warning per shard where it is not) and, unless
	 * {@link ShardTenancyBuilder#installCapture(boolean)} is off, the online mover's change capture. The write check's
	 * installation also makes the tenant column default to the transaction's tenant, so that a plain JDBC INSERT may
	 * omit the column. First, as {@link ShardTenancyBuilder#idCheck(IdCheck)} says, a tenant table column whose values
	 * the database generates (identity, serial, {@code AUTO_INCREMENT}, a sequence default) fails the preparation or is
	 * logged. Idempotent. Asks for the tenant tables if not asked yet.
	 * @throws ShardTenancyConfigurationException if a check or the capture cannot be installed on a table (a missing
	 * table or column, no primary key, an unreachable shard), naming the table and the shard, with setting
	 * {@code tenantTables}; with {@link IdCheck#FAIL}, if a tenant table has a column the database generates values
	 * for, naming table and column (setting {@code shard-tenancy.ids.check}); or, with {@link ShardTenancyBuilder#requireRowLevelSecurity(boolean)}, if a shard's role skips
	 * row-level security (setting {@code requireRowLevelSecurity}); or if a shard's role cannot be read for that
	 * check, or may not switch row-level security on (not the tables' owner; setting {@code rowLevelSecurity})
	 */
	void prepareShards();

	/** @return the router; never {@code null} */
	TenantRouter router();

	/**
	 * @return this instance's shards: those given to the builder, those registered at runtime, and those other
	 * instances registered (added on first use); never {@code null}
	 */
	ShardTopology topology();

	/**
	 * @param shardId a shard of the topology
	 * @return the fence dialect chosen for it; never {@code null}
	 * @throws UnknownShardException if the topology does not have it
	 */
	FenceDialect fenceDialect(String shardId);

	/**
	 * @return the mover, over the tenant tables ({@link ShardTenancyBuilder#tenantTables}) and the library's completion
	 * marks of named tenant task runs ({@code shard_task_log}), created on first use (the tenant tables are then asked
	 * for); never {@code null}
	 */
	TenantMover mover();

	/** @return tenant and shard administration; never {@code null} */
	TenantAdmin admin();

	/**
	 * @return the reference tables: their writes to every ACTIVE shard, repair and verification; never {@code null}
	 * (with none declared, its {@link ReferenceTables#tables()} is empty)
	 */
	ReferenceTables referenceTables();

	/**
	 * Runs one reconciliation of the directory with the rows on the shards; runs are serialised.
	 * @return the report, also kept as {@link #lastReconciliation()}; a shard that cannot be read is listed as
	 * unreachable, not thrown; never {@code null}
	 * @throws DirectoryUnavailableException if the directory cannot be read (no report is kept)
	 */
	ReconciliationReport reconcile();

	/** @return the report of the latest {@link #reconcile()}; empty before the first one */
	Optional<ReconciliationReport> lastReconciliation();

	/** @return the directory database's pool (for its migrations and health checks); never {@code null} */
	DataSource directoryDataSource();

	/**
	 * @return the side of the router that directory watchers feed (a PostgreSQL {@code LISTEN} watcher, for
	 * example); never {@code null}
	 */
	RouteFeed routeFeed();

	/**
	 * @return Hibernate's connection provider for this tenancy: each connection is one of the bound tenant's shard, with
	 * the tenant and directory version set for the shard fence; never {@code null}
	 */
	MultiTenantConnectionProvider<String> connectionProvider();

	/** @return Hibernate's tenant resolver: the tenant bound by {@link TenantContext}; never {@code null} */
	CurrentTenantIdentifierResolver<String> tenantResolver();

	/**
	 * @return the settings that make a Hibernate {@code SessionFactory} use this tenancy (the connection provider, the
	 * tenant resolver and {@value #HANDLING_MODE}), to add to its configuration; a new modifiable map, never
	 * {@code null}
	 */
	default Map<String, Object> hibernateSettings() {
		Map<String, Object> settings = new LinkedHashMap<>();
		settings.put(MultiTenancySettings.MULTI_TENANT_CONNECTION_PROVIDER, connectionProvider());
		settings.put(MultiTenancySettings.MULTI_TENANT_IDENTIFIER_RESOLVER, tenantResolver());
		settings.put(CONNECTION_HANDLING, HANDLING_MODE);
		return settings;
	}

	/**
	 * Generates an id as {@link ShardSafeId} does, for rows written without Hibernate (plain JDBC, {@code JdbcTemplate}):
	 * unique across shards and instances, time-ordered ({@link IdSettings}). Leases this instance's generator id from
	 * the directory on first use, unless a session factory with a {@link ShardSafeId} entity did already. Thread-safe.
	 * @return a new id, positive
	 * @throws IdGenerationException with no valid generator lease (the directory could not be reached for a whole
	 * lease), when the clock stepped back further than tolerated, or when every generator id is leased
	 * @throws DirectoryUnavailableException if the directory cannot be reached to lease a generator id
	 * @throws IllegalStateException if the tenancy is closed
	 */
	long nextId();

	/**
	 * Generates an {@code Integer} id from the default counter, whose key is {@code integer} (row
	 * {@code counter_name = 'integer'} of the directory table {@code shard_id_block}), apart from the counters of the
	 * tables ({@link #nextIntId(String)}): unique across shards and instances among the ids of that counter for the
	 * directory's life, but not apart from a table's ids, so not for the rows of a table whose entities have
	 * {@link ShardSafeId} {@code Integer} ids (use {@link #nextIntId(String)}). It has no table, so it reads no rows
	 * of the shards and starts at 1. Thread-safe.
	 * @return a new id, positive
	 * @throws IdGenerationException if the counter reached {@link Integer#MAX_VALUE} (2<sup>31</sup>-1 ids in all), or a
	 * block was needed and the directory could not be reached
	 * @throws IllegalStateException if the tenancy is closed
	 */
	int nextIntId();

	/**
	 * Generates an {@code Integer} id of a table as {@link ShardSafeId} does on an {@code Integer} id of an entity
	 * mapped to that table, for rows written without Hibernate: unique across shards and instances among the ids of
	 * the table for the directory's life, from a block of ids leased from the table's counter in the directory (one
	 * round trip per {@link IdSettings#integerBlockSize() block}). The counter starts above the largest id already in
	 * the table on every shard of the topology ({@code SELECT MAX(column)} on each, under the library's maintenance
	 * mark, which row-level security lets read every tenant's rows; a shard without the table counts as empty), raised
	 * (never lowered) by this instance at {@link #start()} for every counter the directory has, before its first block
	 * of a counter new to it, when a session factory with {@link ShardSafeId} {@code Integer} entities is built, and for
	 * a shard registered at runtime once its changelogs ran; so a fresh directory on empty tables numbers each table
	 * 1, 2, 3... in the order ids are drawn. The id column: the entity's mapped id column once a session factory or
	 * {@link ShardSafeId} named it, else the table's one-column primary key (JDBC metadata), else a column named
	 * {@code id}. Thread-safe.
	 * @param table the table's name (for an entity, its root entity's table, without schema); case-insensitive, at most
	 * 128 characters
	 * @return a new id, positive
	 * @throws IdGenerationException if the table's counter reached {@link Integer#MAX_VALUE} (2<sup>31</sup>-1 ids per
	 * table), or a block was needed and the directory could not be reached, or (before this instance's first block of
	 * the counter) a shard could not be read for its largest id
	 * @throws IllegalArgumentException if {@code table} is blank or longer than 128 characters
	 * @throws NullPointerException if {@code table} is {@code null}
	 * @throws IllegalStateException if the tenancy is closed
	 */
	int nextIntId(String table);

	/**
	 * Gives an object a new id ({@link #nextId()}) for a row written without Hibernate, undone if the attempt it was
	 * given in fails: the setter is called with the id now and, should the retried unit of work running on this
	 * thread fail this attempt, with {@code null} before the body runs again
	 * ({@code RetryAttempts.onRollback}), so the re-run takes the object for new
	 * again and inserts it, instead of updating a row that was never written.
	 *
	 * <pre>{@code
	 * if (owner.getId() == null) {
	 *     tenancy.assignId(owner::setId);
	 *     jdbc.update("INSERT INTO owners (id, name) VALUES (?, ?)", owner.getId(), owner.getName());
	 * }
	 * }</pre>
	 * Thread-safe; the undo runs on the calling thread.
	 * @param setter sets the object's id; called with the id, and with {@code null} to undo; never {@code null}
	 * @return the id, positive
	 * @throws IdGenerationException as {@link #nextId()}
	 * @throws DirectoryUnavailableException as {@link #nextId()}
	 * @throws NullPointerException if {@code setter} is {@code null}
	 */
	long assignId(Consumer<? super @Nullable Long> setter);

	/**
	 * Gives an object a new {@code Integer} id of a table ({@link #nextIntId(String)}) for a row written without
	 * Hibernate, undone if the attempt it was given in fails, as {@link #assignId(Consumer)} does.
	 * Thread-safe; the undo runs on the calling thread.
	 * @param table the table's name, as for {@link #nextIntId(String)}
	 * @param setter sets the object's id; called with the id, and with {@code null} to undo; never {@code null}
	 * @return the id, positive
	 * @throws IdGenerationException as {@link #nextIntId(String)}
	 * @throws IllegalArgumentException if {@code table} is blank or longer than 128 characters
	 * @throws NullPointerException if an argument is {@code null}
	 */
	int assignIntId(String table, Consumer<? super @Nullable Integer> setter);

	/**
	 * @return a {@link DataSource} whose connections belong to the bound tenant's shard, for plain JDBC (for example
	 * Spring's {@code JdbcTemplate}); connections start in auto-commit mode as JDBC requires; never {@code null}
	 */
	DataSource dataSource();

	/**
	 * @return the observers added, now and later, as one that tells each of them in order (for a retry runner, see
	 * {@link io.github.shardtenancy.retry.RetryAttempts}); never {@code null}
	 */
	ShardTenancyObserver observer();

	/**
	 * Adds an observer told of directory reads, fence rejections, retries and moves, besides those already added.
	 * @param observer the observer; never {@code null}
	 * @throws NullPointerException if {@code observer} is {@code null}
	 */
	void addObserver(ShardTenancyObserver observer);

	/**
	 * Removes an observer added before; nothing happens if it was not added.
	 * @param observer the observer
	 * @return whether it was added before
	 */
	boolean removeObserver(ShardTenancyObserver observer);

	/**
	 * @return the load figures: this instance's traffic per tenant (with {@link ShardTenancyBuilder#loadTracking}) and
	 * storage per tenant and shard read from the shards, the hot-tenant report; never {@code null}
	 */
	TenantLoads load();

	/**
	 * @return the rebalancer, which proposes and runs moves that bring every shard within a band of the median load;
	 * it moves nothing unless asked; never {@code null}
	 */
	Rebalancer rebalancer();

	/**
	 * Interrupts the moves running on the executor the builder created (they resume or abort later from their last
	 * recorded step), stops the router, and closes the pools the builder created. Idempotent.
	 */
	void close();

	/**
	 * @return the instance heartbeat: this instance's applied directory version recorded in the directory database,
	 * and the version skew across instances ({@link InstanceSettings}); never {@code null}
	 */
	Instances instances();

	/**
	 * @return the dual read of moving tenants: compares chosen read-only queries on a moving tenant's source and
	 * target, and gives the move's verification its registered queries; does nothing unless switched on
	 * ({@link ShardTenancyBuilder#dualRead(DualReadSettings)}). Never {@code null}
	 */
	DualRead dualRead();

	/**
	 * @return work across tenants and shards: a function run per tenant in its own transaction (resumable when
	 * named) and read-only scatter-gather queries for administration; created on first use; never {@code null}
	 */
	TenantTasks tenantTasks();

}
