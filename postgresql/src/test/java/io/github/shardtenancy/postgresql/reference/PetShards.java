package io.github.shardtenancy.postgresql.reference;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyBuilder;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.pg.ScratchPostgres;

/**
 * Two pet shards on a scratch PostgreSQL server, migrated by the server's superuser, and an application role that
 * owns nothing: the set-up of the isolation tests that run as a least-privilege role.
 */
final class PetShards {

	/** The role work with no tenant bound runs as, the library's default. */
	static final String REFERENCE_ROLE = ShardTenancyBuilder.DEFAULT_REFERENCE_ROLE;

	/** The shard databases, migrated as shards {@code shard-1} and {@code shard-2}. */
	static final List<String> DATABASES = List.of("shard1", "shard2");

	private PetShards() {
	}

	/**
	 * Creates {@code role} (its password is its name; no SUPERUSER, no BYPASSRLS), the role of work with no tenant
	 * bound ({@link #REFERENCE_ROLE}, {@code NOLOGIN}, with {@code role} a member) and the two shard databases with the
	 * pets schema, and grants the role SELECT, INSERT, UPDATE and DELETE on their tables but nothing on the fence's
	 * secret ({@code shard_fence_key}: the start-up report names a role that may read it).
	 * @param postgres the server
	 * @param role the application's role
	 * @throws SQLException on a database error
	 */
	static void prepare(ScratchPostgres postgres, String role) throws SQLException {
		try (Connection c = superuser(postgres, "postgres"); Statement s = c.createStatement()) {
			s.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + role + "' NOSUPERUSER NOBYPASSRLS");
			// The operator's part of the role for work with no tenant bound (docs/postgresql.md): the owner's start
			// grants it SELECT on the reference tables.
			s.execute("CREATE ROLE " + REFERENCE_ROLE + " NOLOGIN");
			s.execute("GRANT " + REFERENCE_ROLE + " TO " + role);
		}
		for (String shard : DATABASES) {
			try (HikariDataSource owner = postgres.createDatabase(shard, 1)) {
				ShardTenancyMigrations.migrateShard(owner, shard.replace("shard", "shard-"),
						List.of("db/testing/pets.xml"));
			}
			try (Connection c = superuser(postgres, shard); Statement s = c.createStatement()) {
				s.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO " + role);
				s.execute("REVOKE ALL ON shard_fence_key FROM " + role);
			}
		}
	}

	/**
	 * @param postgres the server
	 * @param database a database of it
	 * @return a new connection to the database as the server's superuser, past row-level security
	 * @throws SQLException on a database error
	 */
	static Connection superuser(ScratchPostgres postgres, String database) throws SQLException {
		return DriverManager.getConnection(postgres.server().jdbcUrl().replace("/postgres", "/" + database),
				postgres.server().user(), postgres.server().password());
	}

	/**
	 * @param postgres the server
	 * @param database a database of it
	 * @param user a role (its password is its name, or the server's superuser)
	 * @param size the pool's maximum size
	 * @return a new pool of connections to the database as {@code user}; the caller closes it
	 */
	static HikariDataSource pool(ScratchPostgres postgres, String database, String user, int size) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(postgres.server().jdbcUrl().replace("/postgres", "/" + database));
		config.setUsername(user);
		config.setPassword(user.equals(postgres.server().user()) ? postgres.server().password() : user);
		config.setMaximumPoolSize(size);
		return new HikariDataSource(config);
	}

	/**
	 * @param directory the directory database
	 * @param shard1 shard {@code shard-1}
	 * @param shard2 shard {@code shard-2}
	 * @param strict whether the start refuses a shard role with excess privileges
	 * @param actor the actor named in the directory's history
	 * @return a tenancy over the two pet shards (tenant table {@code pet}, reference table {@code pet_type}), not
	 * started
	 */
	static ShardTenancy tenancy(DataSource directory, DataSource shard1, DataSource shard2, boolean strict,
			String actor) {
		return ShardTenancy.builder()
			.strictSecurity(strict)
			.directory(directory)
			.shard("shard-1", shard1)
			.shard("shard-2", shard2)
			.tenantTables(List.of(new TenantTable("pet", "tenant_id")))
			.referenceTables(List.of("pet_type"))
			.actor(actor)
			.build();
	}

	/**
	 * @param c a connection
	 * @param sql a query
	 * @param parameters its parameters, in order
	 * @return the first column of every row, as text, in the query's order
	 * @throws SQLException on a database error
	 */
	static List<String> firstColumn(Connection c, String sql, Object... parameters) throws SQLException {
		List<String> rows = new ArrayList<>();
		try (PreparedStatement ps = c.prepareStatement(sql)) {
			for (int i = 0; i < parameters.length; i++) {
				ps.setObject(i + 1, parameters[i]);
			}
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					rows.add(rs.getString(1));
				}
			}
		}
		return rows;
	}

}
