package io.github.shardtenancy.spi;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.ShardRecord;

/**
 * Turns a registered shard's connection settings (a JDBC URL and a user name; the registry never stores passwords)
 * into pool settings on an instance that did not register the shard itself. Supply the credentials here, for
 * example from a secret store.
 *
 * <p>The default, {@link #urlAndUser()}, uses the URL and user name as they are, without a password.
 */
@FunctionalInterface
public interface ShardConnector {

	/**
	 * @param shard the registered shard
	 * @return pool settings; the pool name defaults to {@code shard-<id>}
	 */
	HikariConfig settings(ShardRecord shard);

	/** @return a connector using the registry's URL and user name, without a password */
	static ShardConnector urlAndUser() {
		return shard -> {
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(shard.jdbcUrl());
			config.setUsername(shard.username());
			return config;
		};
	}

}
