package io.github.shardtenancy.testing.pg;

/**
 * One PostgreSQL server of the integration-test cluster, which a test can stop and start again on the same port
 * with the same data.
 */
public interface PostgresServer {

	/** @return the server's role in the cluster, e.g. {@code directory} or {@code shard-1} */
	String name();

	/** @return a JDBC URL of the server's {@code postgres} database (stable across restarts) */
	String jdbcUrl();

	/** @return the superuser to connect as */
	String user();

	/** @return its password (may be ignored by the server) */
	String password();

	/** @return whether the server is running */
	boolean isRunning();

	/** Stops the server (a fast shutdown: clients are disconnected); no-op if stopped. */
	void stop();

	/** Starts the server again on the same port with the same data; no-op if running. */
	void start();

}
