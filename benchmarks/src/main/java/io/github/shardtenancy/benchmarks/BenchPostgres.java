package io.github.shardtenancy.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * One embedded PostgreSQL server (binaries version from the root pom's BOM) for every PostgreSQL figure, with one
 * database per purpose. Durability is switched off ({@code fsync}, {@code synchronous_commit}) for both sides alike,
 * so that commits are not disk-bound and any per-transaction overhead shows rather than hides behind an fsync.
 * Not thread-safe to create databases concurrently; connections are.
 */
final class BenchPostgres implements AutoCloseable {

	private final EmbeddedPostgres postgres;

	private BenchPostgres(EmbeddedPostgres postgres) {
		this.postgres = postgres;
	}

	static BenchPostgres start() {
		try {
			return new BenchPostgres(EmbeddedPostgres.builder()
				.setServerConfig("max_connections", "200")
				.setServerConfig("fsync", "off")
				.setServerConfig("synchronous_commit", "off")
				.setServerConfig("full_page_writes", "off")
				.setServerConfig("shared_buffers", "256MB")
				.start());
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot start embedded PostgreSQL", ex);
		}
	}

	String url(String database) {
		return "jdbc:postgresql://localhost:" + this.postgres.getPort() + "/" + database;
	}

	String user() {
		return "postgres";
	}

	String password() {
		return "postgres";
	}

	/**
	 * Creates a database.
	 * @param name a plain identifier
	 * @return its JDBC URL
	 */
	String createDatabase(String name) {
		try (Connection c = DriverManager.getConnection(url("postgres"), user(), password());
				Statement st = c.createStatement()) {
			st.execute("CREATE DATABASE " + name);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot create database " + name + ": " + ex.getMessage(), ex);
		}
		return url(name);
	}

	HikariDataSource pool(String database, int size) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url(database));
		config.setUsername(user());
		config.setPassword(password());
		config.setMaximumPoolSize(size);
		config.setPoolName("bench-" + database);
		return new HikariDataSource(config);
	}

	static void close(DataSource dataSource) {
		if (dataSource instanceof HikariDataSource pool) {
			pool.close();
		}
	}

	@Override
	public void close() {
		try {
			this.postgres.close();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
