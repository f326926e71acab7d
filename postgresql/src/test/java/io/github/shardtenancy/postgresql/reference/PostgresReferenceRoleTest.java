package io.github.shardtenancy.postgresql.reference;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ReferenceStatement;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The role that work with no tenant bound runs as, on embedded PostgreSQL: the owner's start grants it the reference
 * tables; a least-privilege application role that is its member starts in strict mode and reads reference tables as
 * it; every way it can be unusable (no membership, a privilege on a tenant table, a missing role) is named at start-up,
 * refusing the start when strict and otherwise leaving such work to the shard's own role.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("The role of work with no tenant bound on PostgreSQL: made ready by the owner's start, checked at every "
		+ "start")
class PostgresReferenceRoleTest {

	private static final String ROLE = "ref_app";

	private ScratchPostgres postgres;

	private DataSource directory;

	private final List<HikariDataSource> pools = new ArrayList<>();

	@BeforeAll
	void start() throws SQLException {
		this.postgres = ScratchPostgres.start("reference-role");
		this.directory = this.postgres.createDatabase("directory", 2);
		PetShards.prepare(this.postgres, ROLE);
		ShardTenancyMigrations.migrateDirectory(this.directory);
		String superuser = this.postgres.server().user();
		try (ShardTenancy owners = tenancy(pool("shard1", superuser), pool("shard2", superuser), false,
				PetShards.REFERENCE_ROLE)) {
			owners.start();
			owners.referenceTables()
				.write(List.of(ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", 1, "cat")));
		}
	}

	@AfterAll
	void stop() {
		this.pools.forEach(HikariDataSource::close);
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	@Test
	@DisplayName("the owner's start granted the role SELECT on the reference table, and nothing on the tenant table")
	void ownerGrants() throws SQLException {
		for (String shard : PetShards.DATABASES) {
			try (Connection c = PetShards.superuser(this.postgres, shard)) {
				assertThat(PetShards.firstColumn(c, "SELECT has_table_privilege(?, 'pet_type', 'SELECT')::text",
						PetShards.REFERENCE_ROLE)).containsExactly("true");
				assertThat(PetShards.firstColumn(c, "SELECT has_table_privilege(?, 'pet', "
						+ "'SELECT,INSERT,UPDATE,DELETE')::text", PetShards.REFERENCE_ROLE)).containsExactly("false");
			}
		}
	}

	@Test
	@DisplayName("a member starts in strict mode; its reads with no tenant bound run as the role")
	void memberStartsStrict() throws SQLException {
		try (ShardTenancy tenancy = application(true, PetShards.REFERENCE_ROLE)) {
			tenancy.start();
			assertThat(currentUser(tenancy)).isEqualTo(PetShards.REFERENCE_ROLE);
		}
	}

	@Test
	@DisplayName("no membership: strict refuses the start naming the grant; otherwise it starts and such reads run as "
			+ "the shard's role")
	void withoutMembership() throws SQLException {
		superuser("postgres", "REVOKE " + PetShards.REFERENCE_ROLE + " FROM " + ROLE);
		try {
			try (ShardTenancy tenancy = application(true, PetShards.REFERENCE_ROLE)) {
				assertThatThrownBy(tenancy::start).isInstanceOf(ShardTenancyConfigurationException.class)
					.hasMessageContaining(
							"the shard's role \"" + ROLE + "\" may not take the role " + PetShards.REFERENCE_ROLE)
					.hasMessageContaining("GRANT \"" + PetShards.REFERENCE_ROLE + "\" TO \"" + ROLE + "\"")
					.satisfies((ex) -> assertThat(((ShardTenancyConfigurationException) ex).setting())
						.isEqualTo("strictSecurity"));
			}
			try (ShardTenancy tenancy = application(false, PetShards.REFERENCE_ROLE)) {
				tenancy.start();
				assertThat(currentUser(tenancy)).isEqualTo(ROLE);
			}
		}
		finally {
			superuser("postgres", "GRANT " + PetShards.REFERENCE_ROLE + " TO " + ROLE);
		}
	}

	@Test
	@DisplayName("the role may read a tenant table: strict refuses the start naming the table")
	void privilegeOnATenantTable() throws SQLException {
		superuser("shard2", "GRANT SELECT ON pet TO " + PetShards.REFERENCE_ROLE);
		try (ShardTenancy tenancy = application(true, PetShards.REFERENCE_ROLE)) {
			assertThatThrownBy(tenancy::start).isInstanceOf(ShardTenancyConfigurationException.class)
				.hasMessageContaining("shard 'shard-2'")
				.hasMessageContaining("may use relations that are not reference tables: pet (read)")
				.hasMessageContaining("REVOKE ALL ON each FROM");
		}
		finally {
			superuser("shard2", "REVOKE ALL ON pet FROM " + PetShards.REFERENCE_ROLE);
		}
	}

	@Test
	@DisplayName("the role lacks SELECT on a reference table and the shard's role may not grant it (PostgreSQL only "
			+ "warns): strict refuses the start naming the grant")
	void referenceTableNotGranted() throws SQLException {
		superuser("shard2", "REVOKE SELECT ON pet_type FROM " + PetShards.REFERENCE_ROLE);
		try (ShardTenancy tenancy = application(true, PetShards.REFERENCE_ROLE)) {
			assertThatThrownBy(tenancy::start).isInstanceOf(ShardTenancyConfigurationException.class)
				.hasMessageContaining("shard 'shard-2'")
				.hasMessageContaining("may not read a reference table (GRANT SELECT ON pet_type TO "
						+ PetShards.REFERENCE_ROLE);
		}
		finally {
			superuser("shard2", "GRANT SELECT ON pet_type TO " + PetShards.REFERENCE_ROLE);
		}
	}

	@Test
	@DisplayName("a role that does not exist and that the shard's role may not create: strict refuses the start")
	void missingRole() throws SQLException {
		try (ShardTenancy tenancy = application(true, "no_such_reader")) {
			assertThatThrownBy(tenancy::start).isInstanceOf(ShardTenancyConfigurationException.class)
				.hasMessageContaining("the role no_such_reader does not exist")
				.hasMessageContaining("CREATE ROLE \"no_such_reader\" NOLOGIN; GRANT \"no_such_reader\" TO \"" + ROLE
						+ "\"");
		}
		try (ShardTenancy tenancy = application(false, "no_such_reader")) {
			tenancy.start();
			assertThat(currentUser(tenancy)).isEqualTo(ROLE);
		}
	}

	@Test
	@DisplayName("no role (switched off): such reads run as the shard's role, also in strict mode")
	void switchedOff() throws SQLException {
		try (ShardTenancy tenancy = application(true, null)) {
			tenancy.start();
			assertThat(currentUser(tenancy)).isEqualTo(ROLE);
		}
	}

	private ShardTenancy application(boolean strict, @Nullable String referenceRole) {
		return tenancy(pool("shard1", ROLE), pool("shard2", ROLE), strict, referenceRole);
	}

	private ShardTenancy tenancy(DataSource shard1, DataSource shard2, boolean strict, @Nullable String role) {
		return ShardTenancy.builder()
			.strictSecurity(strict)
			.referenceRole(role)
			.directory(this.directory)
			.shard("shard-1", shard1)
			.shard("shard-2", shard2)
			.tenantTables(List.of(new TenantTable("pet", "tenant_id")))
			.referenceTables(List.of("pet_type"))
			.actor("reference-role@pg")
			.build();
	}

	/** @return the role a read with no tenant bound runs as */
	private static String currentUser(ShardTenancy tenancy) throws SQLException {
		try (Connection c = tenancy.dataSource().getConnection()) {
			return PetShards.firstColumn(c, "SELECT current_user FROM pet_type WHERE id = 1").get(0);
		}
	}

	private void superuser(String database, String sql) throws SQLException {
		try (Connection c = PetShards.superuser(this.postgres, database); Statement s = c.createStatement()) {
			s.execute(sql);
		}
	}

	private HikariDataSource pool(String database, String user) {
		HikariDataSource pool = PetShards.pool(this.postgres, database, user, 2);
		this.pools.add(pool);
		return pool;
	}

}
