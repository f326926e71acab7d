package io.github.shardtenancy.postgresql.reference;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.HibernateTenantTables;
import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.NoTenantBoundException;
import io.github.shardtenancy.ReferenceDataReport;
import io.github.shardtenancy.ReferenceStatement;
import io.github.shardtenancy.ReferenceWriteException;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import io.github.shardtenancy.testing.reference.Pet;
import io.github.shardtenancy.testing.reference.PetType;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Reference tables on embedded PostgreSQL: the directory and shard 1 on one server, shard 2 on a second server that
 * the test stops for real during a reference write and starts again. One write reaches both shards; Hibernate reads
 * the reference entity with no tenant bound and refuses the tenant entity; the tenant table's foreign key to the
 * reference table holds on each shard; a write while a shard is down is refused, reads skip that shard; a move
 * copies the tenant's rows only.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Reference tables on PostgreSQL: one write, every shard; a write refused while a shard server is down")
class PostgresReferenceTablesTest {

	private static final String CHANGELOG = "db/testing/pets.xml";

	private ScratchPostgres first;

	private ScratchPostgres second;

	private HikariDataSource shard2;

	private ShardTenancy tenancy;

	private SessionFactory sessionFactory;

	@BeforeAll
	void start() throws SQLException {
		this.first = ScratchPostgres.start("reference-1");
		this.second = ScratchPostgres.start("reference-2");
		DataSource directory = this.first.createDatabase("directory", 4);
		DataSource shard1 = this.first.createDatabase("shard1", 4);
		this.second.createDatabase("shard2", 1).close();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(this.second.server().jdbcUrl().replace("/postgres", "/shard2"));
		config.setUsername(this.second.server().user());
		config.setPassword(this.second.server().password());
		config.setMaximumPoolSize(4);
		config.setConnectionTimeout(1_000);
		config.setInitializationFailTimeout(-1);
		this.shard2 = new HikariDataSource(config);
		this.tenancy = ShardTenancy.builder()
			.directory(directory)
			.shard("shard-1", shard1)
			.shard("shard-2", (DataSource) this.shard2)
			.tenantTables(List.of(new TenantTable("pet", "tenant_id")))
			.referenceTables(() -> HibernateTenantTables.referenceTables(this.sessionFactory))
			.actor("reference@pg")
			.build();
		ShardTenancyMigrations.migrateDirectory(directory);
		ShardTenancyMigrations.migrateShard(shard1, "shard-1", List.of(CHANGELOG));
		ShardTenancyMigrations.migrateShard(this.shard2, "shard-2", List.of(CHANGELOG));
		Configuration configuration = new Configuration().addAnnotatedClass(PetType.class).addAnnotatedClass(Pet.class);
		configuration.getProperties().putAll(this.tenancy.hibernateSettings());
		configuration.setProperty("hibernate.dialect", "org.hibernate.dialect.PostgreSQLDialect");
		configuration.setProperty("hibernate.hbm2ddl.auto", "none");
		this.sessionFactory = configuration.buildSessionFactory();
		this.tenancy.start();
	}

	@AfterAll
	void stop() {
		if (this.sessionFactory != null) {
			this.sessionFactory.close();
		}
		if (this.tenancy != null) {
			this.tenancy.close();
		}
		if (this.shard2 != null) {
			this.shard2.close();
		}
		if (this.second != null) {
			this.second.close();
		}
		if (this.first != null) {
			this.first.close();
		}
	}

	@Test
	@DisplayName("write, read without tenant, foreign key, shard down refuses the write, move leaves reference rows alone")
	void referenceTables() throws Exception {
		long first = this.tenancy.referenceTables()
			.write(List.of(ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", 1, "cat"),
					ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", 2, "dog")));
		assertThat(names("shard-1")).containsExactly("cat", "dog");
		assertThat(names("shard-2")).containsExactly("cat", "dog");
		assertThat(this.tenancy.referenceTables().verify().shardVersions()).containsEntry("shard-1", first)
			.containsEntry("shard-2", first);

		// No tenant: the reference entity reads; the tenant entity and a join with it are refused.
		List<String> all = read(s -> s.createQuery("select t.name from PetType t order by t.id", String.class)
			.getResultList());
		assertThat(all).containsExactly("cat", "dog");
		this.tenancy.admin().create("acme", "shard-1");
		TenantContext.runAs("acme", () -> this.sessionFactory.inTransaction(session -> session
			.persist(new Pet("Tom", session.find(PetType.class, 1)))));
		assertThat(rootCause(catchThrowable(() -> read(s -> s.createQuery("select p.name from Pet p", String.class)
			.getResultList())))).isInstanceOf(NoTenantBoundException.class);
		assertThat(rootCause(catchThrowable(() -> read(s -> s
			.createNativeQuery("select t.name from pet_type t join pet p on p.type_id = t.id", String.class)
			.getResultList())))).isInstanceOf(NoTenantBoundException.class);
		// With the tenant: its shard, where the foreign key to the reference table holds.
		List<String> joined = TenantContext.callAs("acme", () -> read(s -> s
			.createQuery("select p.name || ':' || p.type.name from Pet p", String.class).getResultList()));
		assertThat(joined).containsExactly("Tom:cat");

		// Shard 2's server goes down; the write is refused, shard 1 unchanged, and reads go to shard 1.
		this.second.server().stop();
		assertThatThrownBy(() -> this.tenancy.referenceTables()
			.write(List.of(ReferenceStatement.of("UPDATE pet_type SET name = ? WHERE id = ?", "hound", 2))))
			.isInstanceOfSatisfying(ReferenceWriteException.class, ex -> {
				assertThat(ex.shardId()).isEqualTo("shard-2");
				assertThat(ex.getMessage()).contains("cannot be reached", "nothing recorded");
			});
		assertThat(names("shard-1")).containsExactly("cat", "dog");
		for (int i = 0; i < 3; i++) {
			List<String> current = read(s -> s.createQuery("select t.name from PetType t order by t.id", String.class)
				.getResultList());
			assertThat(current).as("read with no tenant, from a current shard").containsExactly("cat", "dog");
		}

		this.second.server().start();
		PostgresAtomicReferenceWriteTest.awaitAccepting(this.shard2);
		long written = this.tenancy.referenceTables()
			.write(List.of(ReferenceStatement.of("UPDATE pet_type SET name = ? WHERE id = ?", "hound", 2)));
		assertThat(names("shard-1")).containsExactly("cat", "hound");
		assertThat(names("shard-2")).containsExactly("cat", "hound");
		assertThat(this.tenancy.referenceTables().repair()).isEqualTo(written);
		ReferenceDataReport report = this.tenancy.referenceTables().verify();
		assertThat(report.consistent()).as(report.toString()).isTrue();
		assertThat(report.shardVersions()).containsEntry("shard-2", written);

		// A move copies the tenant's pet and nothing of the reference table.
		MoveResult moved = this.tenancy.mover().moveAndWait("acme", "shard-2", MoveSettings.defaults());
		assertThat(moved.step()).isEqualTo(MoveStep.DONE);
		assertThat(moved.rowsCopied()).containsEntry("pet", 1L).doesNotContainKey("pet_type");
		assertThat(names("shard-1")).containsExactly("cat", "hound");
		assertThat(names("shard-2")).containsExactly("cat", "hound");
		String type = TenantContext.callAs("acme", () -> read(s -> s
			.createQuery("select p.type.name from Pet p", String.class).getSingleResult()));
		assertThat(type).isEqualTo("cat");
	}

	private <T> T read(java.util.function.Function<Session, T> work) {
		return this.sessionFactory.fromTransaction(work);
	}

	private static Throwable rootCause(Throwable thrown) {
		assertThat(thrown).as("thrown").isNotNull();
		while (thrown.getCause() != null) {
			thrown = thrown.getCause();
		}
		return thrown;
	}

	private List<String> names(String shardId) throws SQLException {
		List<String> names = new ArrayList<>();
		try (Connection c = this.tenancy.topology().dataSource(shardId).getConnection();
				Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT name FROM pet_type ORDER BY id")) {
			while (rs.next()) {
				names.add(rs.getString(1));
			}
		}
		return names;
	}

}
