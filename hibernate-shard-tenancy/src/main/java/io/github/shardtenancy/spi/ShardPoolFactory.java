package io.github.shardtenancy.spi;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ShardRecord;

/**
 * Turns a registered shard's connection settings (a JDBC URL and a user name; the registry never stores passwords)
 * into a pool on an instance that did not register the shard itself. Supply the credentials here, for
 * example from a secret store.
 *
 * <p>The default, {@link #urlAndUser()}, uses the URL and user name as they are, without a password.
 */
@FunctionalInterface
public interface ShardPoolFactory {

	/**
	 * @param shard the registered shard; never {@code null}
	 * @return a pool on the shard's database; the library closes it (if it is {@link AutoCloseable}) when the shard is
	 * retired or the tenancy closed; never {@code null}
	 */
	DataSource create(ShardRecord shard);

	/** @return a connector using the registry's URL and user name, without a password */
	static ShardPoolFactory urlAndUser() {
		return shard -> {
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(shard.jdbcUrl());
			config.setUsername(shard.username());
			config.setPoolName("shard-" + shard.shardId());
			return new HikariDataSource(config);
		};
	}

}
