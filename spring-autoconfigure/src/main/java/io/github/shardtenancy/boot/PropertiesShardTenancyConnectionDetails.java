package io.github.shardtenancy.boot;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.shardtenancy.ShardTenancyConfigurationException;

/**
 * The default {@link ShardTenancyConnectionDetails}: {@code shard-tenancy.directory.*} and
 * {@code shard-tenancy.shards.<id>.*}, with the databases of development services laid over them (the directory of a
 * {@link ShardTenancyDirectoryConnectionDetails}, each shard of a {@link ShardConnectionDetails}; a service's shard that
 * is not configured is added after the configured ones). Immutable once built.
 */
final class PropertiesShardTenancyConnectionDetails implements ShardTenancyConnectionDetails {

	private final JdbcDatabase directory;

	private final Map<String, JdbcDatabase> shards;

	/**
	 * @param properties the settings
	 * @param directories the development services' directory databases (at most one)
	 * @param shards the development services' shard databases (one per shard id)
	 * @throws ShardTenancyConfigurationException if two directory services or two services of one shard id exist
	 */
	PropertiesShardTenancyConnectionDetails(ShardTenancyProperties properties,
			List<ShardTenancyDirectoryConnectionDetails> directories, List<ShardConnectionDetails> shards) {
		if (directories.size() > 1) {
			throw new ShardTenancyConfigurationException("shard-tenancy.directory.url", "Found " + directories.size()
					+ " directory service connections (" + ShardTenancyDirectoryConnectionDetails.CONNECTION_NAME
					+ "): keep one, the tenancy has one directory database");
		}
		ShardTenancyProperties.Directory directory = properties.getDirectory();
		this.directory = directories.isEmpty()
				? new JdbcDatabase(nonNull(directory.getUrl()), directory.getUsername(), directory.getPassword())
				: directories.get(0).getDatabase();
		Map<String, JdbcDatabase> databases = new LinkedHashMap<>();
		properties.getShards()
			.forEach((id, shard) -> databases.put(id,
					new JdbcDatabase(nonNull(shard.getUrl()), shard.getUsername(), shard.getPassword())));
		Map<String, JdbcDatabase> services = new LinkedHashMap<>();
		for (ShardConnectionDetails service : shards) {
			if (services.put(service.getShardId(), service.getDatabase()) != null) {
				throw new ShardTenancyConfigurationException("shard-tenancy.shards." + service.getShardId() + ".url",
						"Found two shard service connections for shard '" + service.getShardId()
								+ "': give each shard database its own shard id (label " + ShardConnectionDetails.SHARD_ID_LABEL
								+ " or the database name)");
			}
		}
		databases.putAll(services);
		this.shards = Collections.unmodifiableMap(databases);
	}

	private static String nonNull(String url) {
		return (url != null) ? url : "";
	}

	@Override
	public JdbcDatabase getDirectory() {
		return this.directory;
	}

	@Override
	public Map<String, JdbcDatabase> getShards() {
		return this.shards;
	}

}
