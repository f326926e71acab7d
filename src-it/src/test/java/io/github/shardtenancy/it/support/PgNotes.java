package io.github.shardtenancy.it.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

import io.github.shardtenancy.internal.hibernate.TenantIdentifierResolver;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;

/** Plain JDBC on the cluster's {@code pg_note} table (the table of {@link PgNote}). */
public final class PgNotes {

	private PgNotes() {
	}

	/** Inserts a note of the tenant on the connection (routed or raw). */
	public static void insertNote(Connection c, String tenant, String text) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("INSERT INTO pg_note (id, tenant_id, text) VALUES (?, ?, ?)")) {
			ps.setObject(1, UUID.randomUUID());
			ps.setString(2, tenant);
			ps.setString(3, text);
			ps.executeUpdate();
		}
	}

	/** @return the tenant's notes on a shard, read raw (no fence, no routing) */
	public static long countNotes(AppInstance app, String shardId, String tenant) throws SQLException {
		try (Connection c = app.topology.shard(shardId).dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_note WHERE tenant_id = ?")) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	/**
	 * @return a Hibernate SessionFactory of {@link PgNote} over the instance's connection provider (tenant from
	 * {@code TenantContext}); the caller closes it
	 */
	public static SessionFactory sessionFactory(AppInstance app) {
		Configuration cfg = new Configuration();
		cfg.addAnnotatedClass(PgNote.class);
		cfg.setProperty("hibernate.dialect", "org.hibernate.dialect.PostgreSQLDialect");
		cfg.setProperty("hibernate.boot.allow_jdbc_metadata_access", "false");
		cfg.setProperty("hibernate.hbm2ddl.auto", "none");
		cfg.setProperty("hibernate.connection.handling_mode", "DELAYED_ACQUISITION_AND_RELEASE_AFTER_TRANSACTION");
		cfg.getProperties().put("hibernate.multi_tenant_connection_provider", app.provider);
		cfg.getProperties().put("hibernate.tenant_identifier_resolver", new TenantIdentifierResolver());
		return cfg.buildSessionFactory();
	}

}
