package io.github.shardtenancy.testing.reference;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.github.shardtenancy.HibernateTenantTables;
import io.github.shardtenancy.ReferenceDataBehindException;
import io.github.shardtenancy.ReferenceDataReport;
import io.github.shardtenancy.ReferenceStatement;
import io.github.shardtenancy.ReferenceWriteException;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A reference write commits on every ACTIVE shard or on none, on real databases: a write one shard's foreign key
 * refuses is refused as a whole and blocks no later write; a shard that is down makes the write fail with nothing
 * recorded; tenant inserts racing a reference delete end with the same rows on every shard; a shard restored from a
 * backup that predates a write is told apart from an unreachable one by the repair. Tenant {@code acme} lives on
 * shard-2 with pets of the reference table's types. Subclasses give the databases; shard-2 must be one the test can
 * stop and start again.
 */
public abstract class AtomicReferenceWriteScenarios {

	private static final String CHANGELOG = "db/testing/pets.xml";

	private ShardTenancy tenancy;

	private SessionFactory sessionFactory;

	/** @return a new, empty directory database */
	protected abstract DataSource directory();

	/**
	 * @param shardId {@code shard-1} or {@code shard-2}
	 * @return a new, empty shard database; shard-2's pool must survive a stop and start of its server
	 */
	protected abstract DataSource shard(String shardId);

	/** @return Hibernate's dialect class name for the databases */
	protected abstract String hibernateDialect();

	/** Stops the server of shard-2 for real (its data survives). */
	protected abstract void stopShard2();

	/** Starts the server of shard-2 again. */
	protected abstract void startShard2();

	/** Closes what the other methods opened. */
	protected abstract void closeDatabases();

	/** @return the tenancy under test, started */
	protected ShardTenancy tenancy() {
		return this.tenancy;
	}

	@BeforeEach
	void start() throws SQLException {
		DataSource directory = directory();
		DataSource shard1 = shard("shard-1");
		DataSource shard2 = shard("shard-2");
		ShardTenancyMigrations.migrateDirectory(directory);
		ShardTenancyMigrations.migrateShard(shard1, "shard-1", List.of(CHANGELOG));
		ShardTenancyMigrations.migrateShard(shard2, "shard-2", List.of(CHANGELOG));
		this.tenancy = ShardTenancy.builder()
			.directory(directory)
			.shard("shard-1", shard1)
			.shard("shard-2", shard2)
			.tenantTables(List.of(new TenantTable("pet", "tenant_id")))
			.referenceTables(() -> HibernateTenantTables.referenceTables(this.sessionFactory))
			.actor("atomic-reference@test")
			.build();
		Configuration configuration = new Configuration().addAnnotatedClass(PetType.class).addAnnotatedClass(Pet.class);
		configuration.getProperties().putAll(this.tenancy.hibernateSettings());
		configuration.setProperty("hibernate.dialect", hibernateDialect());
		configuration.setProperty("hibernate.hbm2ddl.auto", "none");
		this.sessionFactory = configuration.buildSessionFactory();
		this.tenancy.start();
		this.tenancy.admin().create("acme", "shard-2");
		write("INSERT INTO pet_type (id, name) VALUES (?, ?)", 1, "cat");
		write("INSERT INTO pet_type (id, name) VALUES (?, ?)", 2, "dog");
	}

	@AfterEach
	void stop() {
		if (this.sessionFactory != null) {
			this.sessionFactory.close();
		}
		if (this.tenancy != null) {
			this.tenancy.close();
		}
		closeDatabases();
	}

	@Test
	@DisplayName("a write one shard refuses (a tenant's pet has the type) is refused as a whole; later writes reach "
			+ "every shard")
	void refusedByOneShard() throws SQLException {
		pet("Rex", 2);
		long before = this.tenancy.referenceTables().verify().latestVersion();

		assertThatThrownBy(() -> write("DELETE FROM pet_type WHERE id = ?", 2))
			.isInstanceOfSatisfying(ReferenceWriteException.class, ex -> {
				assertThat(ex.shardId()).isEqualTo("shard-2");
				assertThat(ex.getMessage()).contains("refused as a whole", "shard 'shard-2' refuses it",
						"nothing recorded or committed on any shard");
			});

		assertThat(names("shard-1")).containsExactly("cat", "dog");
		assertThat(names("shard-2")).containsExactly("cat", "dog");
		ReferenceDataReport report = this.tenancy.referenceTables().verify();
		assertThat(report.latestVersion()).isEqualTo(before);
		assertThat(report.consistent()).as(report.toString()).isTrue();
		assertThat(this.tenancy.referenceTables().repair()).isEqualTo(before);
		// Not blocked: the next write reaches both shards.
		long next = write("INSERT INTO pet_type (id, name) VALUES (?, ?)", 3, "bird");
		assertThat(names("shard-1")).containsExactly("cat", "dog", "bird");
		assertThat(names("shard-2")).containsExactly("cat", "dog", "bird");
		assertThat(this.tenancy.referenceTables().verify().shardVersions()).containsEntry("shard-1", next)
			.containsEntry("shard-2", next);
		assertThat(preparedLeft()).isZero();
	}

	@Test
	@DisplayName("a shard that is down makes the write fail, nothing recorded, no shard changed; it writes once back")
	void unreachableShard() {
		long before = this.tenancy.referenceTables().verify().latestVersion();
		stopShard2();
		try {
			assertThatThrownBy(() -> write("UPDATE pet_type SET name = ? WHERE id = ?", "hound", 2))
				.isInstanceOfSatisfying(ReferenceWriteException.class, ex -> {
					assertThat(ex.shardId()).isEqualTo("shard-2");
					assertThat(ex.getMessage()).contains("cannot be reached", "nothing recorded");
				});
			assertThat(names("shard-1")).containsExactly("cat", "dog");
		}
		finally {
			startShard2();
		}
		assertThat(names("shard-2")).containsExactly("cat", "dog");
		assertThat(this.tenancy.referenceTables().verify().latestVersion()).isEqualTo(before);

		long version = write("UPDATE pet_type SET name = ? WHERE id = ?", "hound", 2);
		ReferenceDataReport report = this.tenancy.referenceTables().verify();
		assertThat(report.consistent()).as(report.toString()).isTrue();
		assertThat(report.shardVersions()).containsEntry("shard-1", version).containsEntry("shard-2", version);
		assertThat(names("shard-2")).containsExactly("cat", "hound");
	}

	@Test
	@DisplayName("20 races of a tenant insert and a reference delete of its type: the same rows on every shard")
	void tenantInsertsRacingAReferenceDelete() throws Exception {
		int deleted = 0;
		int kept = 0;
		for (int round = 0; round < 20; round++) {
			int type = 100 + round;
			write("INSERT INTO pet_type (id, name) VALUES (?, ?)", type, "type-" + type);
			CountDownLatch go = new CountDownLatch(1);
			CompletableFuture<Boolean> insert = CompletableFuture.supplyAsync(() -> {
				await(go);
				try {
					pet("pet-" + type, type);
					return true;
				}
				catch (RuntimeException ex) {
					return false;
				}
			});
			CompletableFuture<Boolean> delete = CompletableFuture.supplyAsync(() -> {
				await(go);
				try {
					write("DELETE FROM pet_type WHERE id = ?", type);
					return true;
				}
				catch (ReferenceWriteException ex) {
					return false;
				}
			});
			go.countDown();
			boolean inserted = insert.get(60, TimeUnit.SECONDS);
			boolean removed = delete.get(60, TimeUnit.SECONDS);
			List<String> first = names("shard-1");
			assertThat(names("shard-2")).as("round %d", round).isEqualTo(first);
			assertThat(first.contains("type-" + type)).as("round %d: the type is kept iff the delete was refused",
					round).isEqualTo(!removed);
			if (removed) {
				deleted++;
				if (foreignKeysLockParents()) {
					assertThat(inserted).as("round %d: a pet of a deleted type", round).isFalse();
				}
			}
			else {
				kept++;
			}
		}
		ReferenceDataReport report = this.tenancy.referenceTables().verify();
		assertThat(report.consistent()).as(report.toString()).isTrue();
		assertThat(report.shardVersions().values()).containsOnly(report.latestVersion());
		assertThat(deleted + kept).isEqualTo(20);
		assertThat(preparedLeft()).isZero();
	}

	@Test
	@DisplayName("repair tells a shard that refuses a recorded write (restored from an older backup) from an "
			+ "unreachable one")
	void repairTellsRefusedFromUnreachable() throws SQLException {
		long v1 = this.tenancy.referenceTables().verify().latestVersion();
		write("DELETE FROM pet_type WHERE id = ?", 2);
		// Shard-2 is restored from a backup taken at v1: the dog type and the version of then.
		try (Connection c = this.tenancy.topology().dataSource("shard-2").getConnection();
				Statement s = c.createStatement()) {
			s.executeUpdate("INSERT INTO pet_type (id, name) VALUES (2, 'dog')");
			s.executeUpdate("UPDATE shard_reference_version SET version = " + v1 + " WHERE id = 1");
		}
		// A tenant of shard-2 gives a pet the type only that shard still has.
		pet("Rex", 2);

		assertThatThrownBy(() -> this.tenancy.referenceTables().repair())
			.isInstanceOfSatisfying(ReferenceDataBehindException.class, ex -> {
				assertThat(ex.refused()).containsOnlyKeys("shard-2");
				assertThat(ex.unreachable()).isEmpty();
				assertThat(ex.getMessage()).contains("refuses a recorded write", "fix the rows");
			});
		assertThatThrownBy(() -> write("INSERT INTO pet_type (id, name) VALUES (?, ?)", 3, "bird"))
			.isInstanceOfSatisfying(ReferenceWriteException.class,
					ex -> assertThat(ex.getMessage()).contains("misses the recorded write", "refuses it"));
		assertThat(names("shard-1")).containsExactly("cat");

		stopShard2();
		try {
			assertThatThrownBy(() -> this.tenancy.referenceTables().repair())
				.isInstanceOfSatisfying(ReferenceDataBehindException.class, ex -> {
					assertThat(ex.unreachable()).containsOnlyKeys("shard-2");
					assertThat(ex.refused()).isEmpty();
					assertThat(ex.getMessage()).contains("cannot be reached", "once it is back");
				});
		}
		finally {
			startShard2();
		}
		// The operator fixes the rows on shard-2; the repair then brings it to the latest version.
		TenantContext.runAs("acme", () -> this.sessionFactory
			.inTransaction(session -> session.createMutationQuery("delete from Pet").executeUpdate()));
		long version = this.tenancy.referenceTables().repair();
		assertThat(names("shard-2")).containsExactly("cat");
		assertThat(this.tenancy.referenceTables().verify().shardVersions()).containsEntry("shard-2", version);
	}

	/**
	 * @return whether the database's foreign key check locks the referenced row, so that a child inserted while its
	 * parent is deleted fails one of the two (PostgreSQL: yes)
	 */
	protected boolean foreignKeysLockParents() {
		return true;
	}

	/** @return the transactions a reference write left prepared on either shard (0 where there are none) */
	protected int preparedLeft() throws SQLException {
		return 0;
	}

	protected long write(String sql, Object... parameters) {
		return this.tenancy.referenceTables().write(List.of(ReferenceStatement.of(sql, parameters)));
	}

	/** Inserts a pet of tenant acme (shard-2) with the type, by reference: the foreign key decides. */
	protected void pet(String name, int type) {
		TenantContext.runAs("acme", () -> this.sessionFactory.inTransaction(
				session -> session.persist(new Pet(name, session.getReference(PetType.class, type)))));
	}

	protected List<String> names(String shardId) {
		List<String> names = new ArrayList<>();
		try (Connection c = this.tenancy.topology().dataSource(shardId).getConnection();
				PreparedStatement s = c.prepareStatement("SELECT name FROM pet_type ORDER BY id");
				ResultSet rs = s.executeQuery()) {
			while (rs.next()) {
				names.add(rs.getString(1));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		return names;
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
