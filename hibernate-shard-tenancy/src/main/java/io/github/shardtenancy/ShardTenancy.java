package io.github.shardtenancy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.hibernate.ShardMultiTenantConnectionProvider;
import io.github.shardtenancy.internal.hibernate.TenantIdentifierResolver;
import io.github.shardtenancy.internal.hibernate.TenantRoutingDataSource;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.spi.RouteFeed;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import org.hibernate.cfg.MultiTenancySettings;
import org.hibernate.context.spi.CurrentTenantIdentifierResolver;
import org.hibernate.engine.jdbc.connections.spi.MultiTenantConnectionProvider;

/**
 * The entry point: wires the directory, the topology, the router and the Hibernate integration, without Spring.
 *
 * <pre>{@code
 * try (ShardTenancy tenancy = ShardTenancy.builder()
 *         .directory(directoryDataSource)
 *         .shard("shard-1", shard1DataSource)
 *         .shard("shard-2", shard2DataSource)
 *         .build()) {
 *     tenancy.start();
 *     SessionFactory sessionFactory = new Configuration()
 *         .addProperties(tenancy.hibernateSettings()) ...
 * }
 * }</pre>
 *
 * <p>Thread-safe once built. {@link #close()} stops the router and closes the pools the builder created (pools passed
 * in as {@link DataSource}s are left open).
 */
public final class ShardTenancy implements AutoCloseable {

	private final Directory directory;

	private final DataSource directoryDataSource;

	private final boolean ownsDirectoryPool;

	private final Topology topology;

	private final Router router;

	private final ShardMultiTenantConnectionProvider connectionProvider;

	private final TenantIdentifierResolver tenantResolver = new TenantIdentifierResolver();

	private final TenantRoutingDataSource dataSource;

	private ShardTenancy(Builder builder) {
		this.directoryDataSource = builder.directoryDataSource;
		this.ownsDirectoryPool = builder.ownsDirectoryPool;
		this.directory = new Directory(builder.directoryDataSource);
		this.topology = builder.topology;
		this.router = new Router(this.directory, builder.routerSettings);
		builder.observers.forEach(this.router::addObserver);
		this.connectionProvider = new ShardMultiTenantConnectionProvider(this.router, this.topology);
		this.dataSource = new TenantRoutingDataSource(this.connectionProvider);
	}

	/** @return a new builder; never {@code null} */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Loads the directory (one streamed snapshot) and starts the router's background sync. Call it once the directory
	 * and shard schemas exist. Idempotent.
	 * @throws DirectoryUnavailableException if the first snapshot cannot be read; the router is then not ready and its
	 * sync keeps trying
	 */
	public void start() {
		this.router.start();
	}

	/** @return the router; never {@code null} */
	public Router router() {
		return this.router;
	}

	/** @return the topology; never {@code null} */
	public Topology topology() {
		return this.topology;
	}

	/** @return the directory database's pool (for its migrations and health checks); never {@code null} */
	public DataSource directoryDataSource() {
		return this.directoryDataSource;
	}

	/**
	 * @return the side of the router that directory watchers feed (a PostgreSQL {@code LISTEN} watcher, for
	 * example); never {@code null}
	 */
	public RouteFeed routeFeed() {
		return this.router;
	}

	/**
	 * @return Hibernate's connection provider for this tenancy: each connection is one of the bound tenant's shard, with
	 * the tenant and directory version set for the shard fence; never {@code null}
	 */
	public MultiTenantConnectionProvider<String> connectionProvider() {
		return this.connectionProvider;
	}

	/** @return Hibernate's tenant resolver: the tenant bound by {@link TenantContext}; never {@code null} */
	public CurrentTenantIdentifierResolver<String> tenantResolver() {
		return this.tenantResolver;
	}

	/**
	 * @return the settings that make a Hibernate {@code SessionFactory} use this tenancy (the connection provider and
	 * the tenant resolver), to add to its configuration; a new modifiable map, never {@code null}
	 */
	public Map<String, Object> hibernateSettings() {
		Map<String, Object> settings = new LinkedHashMap<>();
		settings.put(MultiTenancySettings.MULTI_TENANT_CONNECTION_PROVIDER, this.connectionProvider);
		settings.put(MultiTenancySettings.MULTI_TENANT_IDENTIFIER_RESOLVER, this.tenantResolver);
		return settings;
	}

	/**
	 * @return a {@link DataSource} whose connections belong to the bound tenant's shard, for plain JDBC (for example
	 * Spring's {@code JdbcTemplate}); connections start in auto-commit mode as JDBC requires; never {@code null}
	 */
	public DataSource dataSource() {
		return this.dataSource;
	}

	/**
	 * Adds an observer told of directory reads, fence rejections, retries and moves, besides those already added.
	 * @param observer the observer; never {@code null}
	 */
	public void addObserver(ShardTenancyObserver observer) {
		this.router.addObserver(Objects.requireNonNull(observer, "observer"));
	}

	/**
	 * Removes an observer added before; nothing happens if it was not added.
	 * @param observer the observer
	 * @return whether it was added before
	 */
	public boolean removeObserver(ShardTenancyObserver observer) {
		return this.router.removeObserver(observer);
	}

	/** Stops the router and closes the pools the builder created. */
	@Override
	public void close() {
		try {
			this.router.close();
			this.topology.close();
		}
		finally {
			if (this.ownsDirectoryPool && this.directoryDataSource instanceof HikariDataSource pool) {
				pool.close();
			}
		}
	}

	/**
	 * Builds a {@link ShardTenancy}. Not thread-safe; build once.
	 */
	public static final class Builder {

		private DataSource directoryDataSource;

		private boolean ownsDirectoryPool;

		private final Topology topology = new Topology();

		private RouterSettings routerSettings = RouterSettings.defaults();

		private final List<ShardTenancyObserver> observers = new ArrayList<>();

		private Builder() {
		}

		/**
		 * @param dataSource a pool on the directory database (left open by {@link ShardTenancy#close()}); never
		 * {@code null}
		 * @return this builder
		 */
		public Builder directory(DataSource dataSource) {
			this.directoryDataSource = Objects.requireNonNull(dataSource, "dataSource");
			this.ownsDirectoryPool = false;
			return this;
		}

		/**
		 * @param config HikariCP settings of a pool on the directory database; the pool is created now and closed by
		 * {@link ShardTenancy#close()}; never {@code null}
		 * @return this builder
		 */
		public Builder directory(HikariConfig config) {
			this.directoryDataSource = new HikariDataSource(Objects.requireNonNull(config, "config"));
			this.ownsDirectoryPool = true;
			return this;
		}

		/**
		 * Adds a shard with a pool of the caller's (left open by {@link ShardTenancy#close()}).
		 * @param shardId logical id: 1 to 64 letters, digits, {@code . _ -}, starting with a letter or digit
		 * @param dataSource the pool; never {@code null}
		 * @return this builder
		 * @throws ShardTenancyConfigurationException if the id is invalid or taken, or no fence dialect supports the
		 * shard's database
		 */
		public Builder shard(String shardId, DataSource dataSource) {
			this.topology.addShard(shardId, dataSource);
			return this;
		}

		/**
		 * Adds a shard with a pool created now from HikariCP settings and closed by {@link ShardTenancy#close()}.
		 * @param shardId logical id, see {@link #shard(String, DataSource)}
		 * @param config the pool settings; the pool name defaults to {@code shard-<id>}; never {@code null}
		 * @return this builder
		 * @throws ShardTenancyConfigurationException if the id is invalid or taken, or the shard cannot be reached to
		 * choose its fence dialect
		 */
		public Builder shard(String shardId, HikariConfig config) {
			this.topology.addShard(shardId, config);
			return this;
		}

		/**
		 * @param settings the router's cache and sync settings; default {@link RouterSettings#defaults()}
		 * @return this builder
		 */
		public Builder router(RouterSettings settings) {
			this.routerSettings = Objects.requireNonNull(settings, "settings");
			return this;
		}

		/**
		 * @param observer told of directory reads, rejections, retries and moves, besides the others added; never
		 * {@code null}
		 * @return this builder
		 */
		public Builder observer(ShardTenancyObserver observer) {
			this.observers.add(Objects.requireNonNull(observer, "observer"));
			return this;
		}

		/**
		 * @return the tenancy, not started yet ({@link ShardTenancy#start()})
		 * @throws ShardTenancyConfigurationException if no directory or no shard was given
		 */
		public ShardTenancy build() {
			if (this.directoryDataSource == null) {
				throw new ShardTenancyConfigurationException("directory",
						"No directory database is configured: call directory(...) on the builder");
			}
			if (this.topology.shardIds().isEmpty()) {
				throw new ShardTenancyConfigurationException("shards",
						"No shards are configured: call shard(...) on the builder at least once");
			}
			return new ShardTenancy(this);
		}

	}

}
