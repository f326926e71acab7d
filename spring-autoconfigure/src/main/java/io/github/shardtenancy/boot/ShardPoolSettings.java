package io.github.shardtenancy.boot;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.core.env.Environment;

/**
 * The HikariCP settings of the pools the starter builds, layered from {@code shard-tenancy.*}. Every HikariCP
 * setting is bound onto a {@link HikariConfig} the way Spring Boot binds {@code spring.datasource.hikari.*} onto its
 * {@code HikariDataSource}: by Boot's {@link Binder}, through the JavaBean setters of {@link HikariConfig}, so that
 * only the settings present in the environment are set. For a shard, from lowest to highest precedence:
 * <ol>
 * <li>HikariCP's defaults;</li>
 * <li>{@code shard-tenancy.pool.connection-timeout} (5 s by default);</li>
 * <li>{@code shard-tenancy.pool.hikari.*};</li>
 * <li>the pool name {@code shard-<id>};</li>
 * <li>{@code shard-tenancy.shards.<id>.url}, {@code .username}, {@code .password} (or, when given, the shard's
 * {@link ShardTenancyConnectionDetails}), {@code .maximum-pool-size}, {@code .connection-timeout}, those that are
 * set;</li>
 * <li>{@code shard-tenancy.shards.<id>.hikari.*};</li>
 * <li>for a shard another instance registered: the JDBC URL and user name recorded in the shard registry.</li>
 * </ol>
 * For the directory: HikariCP's defaults, the pool name {@code shard-tenancy-directory},
 * {@code shard-tenancy.directory.*} (its URL, user and password from the {@link ShardTenancyConnectionDetails} when
 * given), then {@code shard-tenancy.directory.hikari.*}.
 *
 * <p>Thread-safe: each call binds onto a new {@link HikariConfig}.
 *
 * @see <a href="https://docs.spring.io/spring-boot/reference/data/sql.html#data.sql.datasource.configuration">
 * Spring Boot: DataSource configuration</a>
 * @see <a href="https://github.com/brettwooldridge/HikariCP#gear-configuration-knobs-baby">HikariCP settings</a>
 */
final class ShardPoolSettings {

	static final String DIRECTORY_POOL_NAME = "shard-tenancy-directory";

	private final ShardTenancyProperties properties;

	private final Binder binder;

	private final @Nullable ShardTenancyConnectionDetails connections;

	/**
	 * @param properties the bound {@code shard-tenancy.*} settings
	 * @param environment where the {@code hikari.*} settings are bound from
	 */
	ShardPoolSettings(ShardTenancyProperties properties, Environment environment) {
		this(properties, environment, null);
	}

	/**
	 * @param properties the bound {@code shard-tenancy.*} settings
	 * @param environment where the {@code hikari.*} settings are bound from
	 * @param connections where the URLs, users and passwords come from instead of the {@code url}, {@code username}
	 * and {@code password} properties (same precedence); {@code null} for those properties
	 */
	ShardPoolSettings(ShardTenancyProperties properties, Environment environment,
			@Nullable ShardTenancyConnectionDetails connections) {
		this.properties = properties;
		this.binder = Binder.get(environment);
		this.connections = connections;
	}

	/** @return the settings of the directory's pool; a new instance */
	HikariConfig directory() {
		ShardTenancyProperties.Directory directory = this.properties.getDirectory();
		HikariConfig config = new HikariConfig();
		config.setPoolName(DIRECTORY_POOL_NAME);
		if (this.connections != null) {
			ShardTenancyConnectionDetails.JdbcDatabase database = this.connections.getDirectory();
			config.setJdbcUrl(database.jdbcUrl());
			config.setUsername(database.username());
			config.setPassword(database.password());
		}
		else {
			config.setJdbcUrl(directory.getUrl());
			config.setUsername(directory.getUsername());
			config.setPassword(directory.getPassword());
		}
		config.setMaximumPoolSize(directory.getMaximumPoolSize());
		bind("shard-tenancy.directory.hikari", config);
		return config;
	}

	/**
	 * @param shardId a configured shard, or one another instance registered
	 * @return the settings of that shard's pool; a new instance
	 * @throws ShardTenancyConfigurationException if {@code shard-tenancy.pool.hikari.pool-name} is set (it would name
	 * every shard pool alike)
	 */
	HikariConfig shard(String shardId) {
		if (this.binder.bind("shard-tenancy.pool.hikari.pool-name", String.class).isBound()) {
			throw new ShardTenancyConfigurationException("shard-tenancy.pool.hikari.pool-name",
					"shard-tenancy.pool.hikari.pool-name would give every shard pool the same name: remove it (each "
							+ "shard pool is named shard-<id>) or set shard-tenancy.shards.<id>.hikari.pool-name");
		}
		HikariConfig config = new HikariConfig();
		config.setConnectionTimeout(this.properties.getPool().getConnectionTimeout().toMillis());
		bind("shard-tenancy.pool.hikari", config);
		config.setPoolName("shard-" + shardId);
		ShardProperties shard = this.properties.getShards().get(shardId);
		ShardTenancyConnectionDetails.JdbcDatabase database = (this.connections != null)
				? this.connections.getShards().get(shardId) : null;
		if (database != null) {
			setIfPresent(database.jdbcUrl().isBlank() ? null : database.jdbcUrl(), config::setJdbcUrl);
			setIfPresent(database.username(), config::setUsername);
			setIfPresent(database.password(), config::setPassword);
		}
		if (shard != null) {
			if (database == null) {
				setIfPresent(shard.getUrl(), config::setJdbcUrl);
				setIfPresent(shard.getUsername(), config::setUsername);
				setIfPresent(shard.getPassword(), config::setPassword);
			}
			setIfPresent(shard.getMaximumPoolSize(), config::setMaximumPoolSize);
			setIfPresent(shard.getConnectionTimeout(), (timeout) -> config.setConnectionTimeout(timeout.toMillis()));
			bind(ConfigurationPropertyName.of("shard-tenancy.shards").append("[" + shardId + "]").append("hikari"),
					config);
		}
		return config;
	}

	/**
	 * @param shardId a configured shard
	 * @param index the replica's index in {@code shard-tenancy.shards.<id>.replicas}
	 * @return the settings of that replica's pool: the shard pool's settings, then the replica's own; read-only;
	 * a new instance
	 * @throws ShardTenancyConfigurationException if the replica has no URL
	 */
	HikariConfig replica(String shardId, int index) {
		ReplicaProperties replica = this.properties.getShards().get(shardId).getReplicas().get(index);
		if (replica.getUrl() == null || replica.getUrl().isBlank()) {
			throw new ShardTenancyConfigurationException("shard-tenancy.shards." + shardId + ".replicas[" + index
					+ "].url", "Replica " + index + " of shard '" + shardId + "' has no JDBC URL: set shard-tenancy.shards."
							+ shardId + ".replicas[" + index + "].url");
		}
		HikariConfig config = shard(shardId);
		config.setPoolName("replica-" + shardId + "-" + replicaName(shardId, index));
		config.setJdbcUrl(replica.getUrl());
		setIfPresent(replica.getUsername(), config::setUsername);
		setIfPresent(replica.getPassword(), config::setPassword);
		setIfPresent(replica.getMaximumPoolSize(), config::setMaximumPoolSize);
		bind(ConfigurationPropertyName.of("shard-tenancy.shards").append("[" + shardId + "]").append("replicas[" + index
				+ "]").append("hikari"), config);
		config.setReadOnly(true);
		return config;
	}

	/**
	 * @param shardId a configured shard
	 * @param index the replica's index
	 * @return its configured name, or {@code replica-<index>}
	 */
	String replicaName(String shardId, int index) {
		String name = this.properties.getShards().get(shardId).getReplicas().get(index).getName();
		return name != null && !name.isBlank() ? name : "replica-" + index;
	}

	private void bind(String name, HikariConfig config) {
		bind(ConfigurationPropertyName.of(name), config);
	}

	private void bind(ConfigurationPropertyName name, HikariConfig config) {
		this.binder.bind(name, Bindable.ofInstance(config));
	}

	private static <T> void setIfPresent(T value, java.util.function.Consumer<T> setter) {
		if (value != null) {
			setter.accept(value);
		}
	}

}
