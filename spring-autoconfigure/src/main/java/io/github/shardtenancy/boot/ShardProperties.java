package io.github.shardtenancy.boot;

import java.time.Duration;

import com.zaxxer.hikari.HikariConfig;

/** Connection settings of one shard database. Bound from {@code shard-tenancy.shards.<id>.*}, see {@link ShardTenancyProperties}. */
public class ShardProperties {

	/** JDBC URL of the shard database. Required; no default. */
	private String url;

	/** Database user of the shard. Default: none (the driver's default). */
	private String username;

	/** Password of the shard user. Default: none. */
	private String password;

	/**
	 * Maximum size of the shard's HikariCP pool, in connections. Default: none,
	 * {@code shard-tenancy.pool.hikari.maximum-pool-size} or else HikariCP's 10.
	 */
	private Integer maximumPoolSize;

	/**
	 * The shard's region, recorded in the shard registry and used by the {@code region} placement policy (data
	 * residency). Default: none.
	 */
	private String region;

	/**
	 * How long a borrower waits for a connection of this shard's pool before failing (HikariCP
	 * {@code connectionTimeout}), at least 250 ms. Default: none, {@code shard-tenancy.pool.connection-timeout}.
	 */
	private Duration connectionTimeout;

	/**
	 * Any HikariCP setting of this shard's pool, bound as {@code spring.datasource.hikari.*} is (durations in
	 * milliseconds); it wins over every other setting of the pool. Default: none, the settings above and
	 * {@code shard-tenancy.pool.*}.
	 */
	private final HikariConfig hikari = new HikariConfig();

	/**
	 * Read replicas of the shard, each with its own read-only pool; used only when
	 * {@code shard-tenancy.replicas.enabled} is true. Default: none.
	 */
	private java.util.List<ReplicaProperties> replicas = new java.util.ArrayList<>();

	public java.util.List<ReplicaProperties> getReplicas() {
		return this.replicas;
	}

	public void setReplicas(java.util.List<ReplicaProperties> replicas) {
		this.replicas = replicas;
	}

	public HikariConfig getHikari() {
		return this.hikari;
	}

	public Duration getConnectionTimeout() {
		return this.connectionTimeout;
	}

	public void setConnectionTimeout(Duration connectionTimeout) {
		this.connectionTimeout = connectionTimeout;
	}

	public String getRegion() {
		return this.region;
	}

	public void setRegion(String region) {
		this.region = region;
	}

	public String getUrl() {
		return this.url;
	}

	public void setUrl(String url) {
		this.url = url;
	}

	public String getUsername() {
		return this.username;
	}

	public void setUsername(String username) {
		this.username = username;
	}

	public String getPassword() {
		return this.password;
	}

	public void setPassword(String password) {
		this.password = password;
	}

	public Integer getMaximumPoolSize() {
		return this.maximumPoolSize;
	}

	public void setMaximumPoolSize(Integer maximumPoolSize) {
		this.maximumPoolSize = maximumPoolSize;
	}

}
