package io.github.shardtenancy.boot;

import com.zaxxer.hikari.HikariConfig;

/**
 * Connection settings of one read replica of a shard. Bound from {@code shard-tenancy.shards.<id>.replicas[n].*}, see
 * {@link ShardProperties}. Its pool is read-only; it serves read-only transactions only when
 * {@code shard-tenancy.replicas.enabled} is true.
 */
public class ReplicaProperties {

	/** Name of the replica, unique within its shard. Default: {@code replica-<n>}, n its index from 0. */
	private String name;

	/** JDBC URL of the replica database. Required; no default. */
	private String url;

	/** Database user on the replica. Default: none, the shard's user. */
	private String username;

	/** Password of the replica user. Default: none, the shard's password. */
	private String password;

	/** Maximum size of the replica's HikariCP pool, in connections. Default: none, the shard pool's size. */
	private Integer maximumPoolSize;

	/**
	 * Any HikariCP setting of the replica's pool, bound as {@code spring.datasource.hikari.*} is (durations in
	 * milliseconds); it wins over every other setting of the pool. Default: none.
	 */
	private final HikariConfig hikari = new HikariConfig();

	public String getName() {
		return this.name;
	}

	public void setName(String name) {
		this.name = name;
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

	public HikariConfig getHikari() {
		return this.hikari;
	}

}
