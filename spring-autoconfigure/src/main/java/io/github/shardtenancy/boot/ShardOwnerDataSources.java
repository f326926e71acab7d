package io.github.shardtenancy.boot;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Per shard id, a {@link DataSource} that connects to the shard's database as the user of
 * {@code shard-tenancy.migrations.username}, the owner of the shards' schema, for the shard's migrations and the
 * installation of its fence ({@link io.github.shardtenancy.ShardTenancyBuilder#shardOwners}); {@code null} when that
 * user is not set, or for a shard whose URL the properties do not have (a shard another instance registered). Each
 * connection is opened on demand and closed after use ({@link DriverManagerDataSource}). Thread-safe.
 */
final class ShardOwnerDataSources implements Function<String, @Nullable DataSource> {

	private final @Nullable String username;

	private final @Nullable String password;

	private final ShardPoolSettings pools;

	private final Map<String, DataSource> owners = new ConcurrentHashMap<>();

	ShardOwnerDataSources(ShardTenancyProperties properties, Environment environment,
			ShardTenancyConnectionDetails connections) {
		String user = properties.getMigrations().getUsername();
		this.username = (user == null || user.isBlank()) ? null : user;
		this.password = properties.getMigrations().getPassword();
		this.pools = new ShardPoolSettings(properties, environment, connections);
	}

	@Override
	public @Nullable DataSource apply(String shardId) {
		if (this.username == null) {
			return null;
		}
		DataSource known = this.owners.get(shardId);
		if (known != null) {
			return known;
		}
		String url = this.pools.shard(shardId).getJdbcUrl();
		if (url == null || url.isBlank()) {
			return null;
		}
		return this.owners.computeIfAbsent(shardId, (id) -> new DriverManagerDataSource(url, this.username,
				this.password));
	}

}
