package io.github.shardtenancy.reference;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.HibernateTenantTables;
import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.NoTenantBoundException;
import io.github.shardtenancy.ReferenceDataReport;
import io.github.shardtenancy.ReferenceStatement;
import io.github.shardtenancy.ReferenceWriteException;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.reference.Pet;
import io.github.shardtenancy.testing.reference.PetType;
import org.h2.tools.Server;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Reference tables on real H2 shards, wired by {@link ShardTenancy#builder()} and used through a plain Hibernate
 * session factory: declared by {@code @ReferenceData}, written to every shard, read with no tenant bound (and only
 * they), referenced by foreign key from a tenant table, left alone by a move, given to a shard registered at runtime,
 * and kept or repaired when a shard is down during a write. Shard 2 is served by an H2 TCP server, so that stopping
 * the server takes that shard down for real (its in-memory database survives, as a database server's disk does).
 */
@DisplayName("Reference tables on H2: one write, every shard; reads with no tenant; a shard down and repaired")
class ReferenceTablesTest {

	private static final String CHANGELOG = "db/testing/pets.xml";

	private final String name = "reference-" + UUID.randomUUID().toString().substring(0, 8);

	private Server server;

	private int port;

	/** Where the TCP server keeps shard 2's database files, so that they outlive a stop of the server. */
	private String baseDir;

	private ShardTenancy tenancy;

	private SessionFactory sessionFactory;

	private final List<String> runtimeUrls = new ArrayList<>();

	@BeforeEach
	void start() throws SQLException {
		try {
			this.baseDir = java.nio.file.Files.createTempDirectory("h2-reference").toString();
		}
		catch (java.io.IOException ex) {
			throw new IllegalStateException(ex);
		}
		this.server = Server.createTcpServer("-tcpPort", "0", "-ifNotExists", "-baseDir", this.baseDir).start();
		this.port = this.server.getPort();
		this.tenancy = ShardTenancy.builder()
			.directory(pool("jdbc:h2:mem:" + this.name + "-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000"))
			.shard("shard-1", pool(memUrl("shard-1")))
			.shard("shard-2", pool(tcpUrl("shard-2")))
			.tenantTables(List.of(new TenantTable("pet", "tenant_id")))
			.referenceTables(() -> HibernateTenantTables.referenceTables(this.sessionFactory))
			.shardMigrator((shardId, dataSource, dialect) -> ShardTenancyMigrations.migrateShard(dataSource, shardId,
					List.of(CHANGELOG)))
			.actor("reference@test")
			.build();
		ShardTenancyMigrations.migrateDirectory(this.tenancy.directoryDataSource());
		for (String shardId : this.tenancy.topology().shardIds()) {
			ShardTenancyMigrations.migrateShard(this.tenancy.topology().dataSource(shardId), shardId,
					List.of(CHANGELOG));
		}
		Configuration configuration = new Configuration().addAnnotatedClass(PetType.class).addAnnotatedClass(Pet.class);
		configuration.getProperties().putAll(this.tenancy.hibernateSettings());
		configuration.setProperty("hibernate.dialect", "org.hibernate.dialect.H2Dialect");
		configuration.setProperty("hibernate.hbm2ddl.auto", "none");
		this.sessionFactory = configuration.buildSessionFactory();
		this.tenancy.start();
	}

	@AfterEach
	void stop() {
		if (this.sessionFactory != null) {
			this.sessionFactory.close();
		}
		if (this.tenancy != null) {
			this.tenancy.close();
		}
		this.server.stop();
		for (String url : this.runtimeUrls) {
			shutdown(url);
		}
		shutdown(memUrl("shard-1"));
		shutdown("jdbc:h2:mem:" + this.name + "-directory");
	}

	@Test
	@DisplayName("@ReferenceData entities are reference tables, not tenant tables; a table declared both is refused")
	void declaration() {
		assertThat(HibernateTenantTables.referenceTables(this.sessionFactory)).containsExactly("pet_type");
		assertThat(HibernateTenantTables.discover(this.sessionFactory)).extracting(TenantTable::table)
			.containsExactly("pet");
		assertThat(this.tenancy.referenceTables().tables()).containsExactly("pet_type");
		try (ShardTenancy both = ShardTenancy.builder()
			.directory(this.tenancy.directoryDataSource())
			.shard("shard-1", this.tenancy.topology().dataSource("shard-1"))
			.tenantTables(List.of(new TenantTable("pet_type", "id")))
			.referenceTables(List.of("PET_TYPE"))
			.registerShards(false)
			.prepareShardsOnStart(false)
			.build()) {
			assertThatThrownBy(() -> both.admin().create("x", "shard-1"))
				.isInstanceOf(ShardTenancyConfigurationException.class)
				.hasMessageContaining("both a tenant table")
				.hasMessageContaining("pet_type");
		}
	}

	@Test
	@DisplayName("a write reaches every shard; reads need no tenant; tenant rows stay refused with no tenant")
	void writeAndReadWithoutTenant() throws Exception {
		long version = this.tenancy.referenceTables()
			.write(List.of(ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", 1, "cat"),
					ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", 2, "dog")));

		assertThat(version).isPositive();
		for (String shardId : List.of("shard-1", "shard-2")) {
			assertThat(names(shardId)).as(shardId).containsExactly("cat", "dog");
		}
		ReferenceDataReport report = this.tenancy.referenceTables().verify();
		assertThat(report.consistent()).as(report.toString()).isTrue();
		assertThat(report.shardVersions()).containsEntry("shard-1", version).containsEntry("shard-2", version);

		// No tenant bound: Hibernate reads the reference entity, by id and by query, from any current shard.
		assertThat(TenantContext.current()).isNull();
		String dog = read(session -> session.find(PetType.class, 2).getName());
		assertThat(dog).isEqualTo("dog");
		List<String> all = read(session -> session
			.createQuery("select t.name from PetType t order by t.id", String.class).getResultList());
		assertThat(all).containsExactly("cat", "dog");
		// ... and plain JDBC through the routing DataSource too.
		try (Connection c = this.tenancy.dataSource().getConnection(); Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("select count(*) from pet_type")) {
			rs.next();
			assertThat(rs.getInt(1)).isEqualTo(2);
		}

		// A tenant's rows exist; with no tenant bound, neither Hibernate nor JDBC may read them.
		this.tenancy.admin().create("acme", "shard-1");
		TenantContext.runAs("acme", () -> this.sessionFactory.inTransaction(session -> session
			.persist(new Pet("Tom", session.find(PetType.class, 1)))));
		assertThat(rootCause(() -> read(session -> session
			.createQuery("select p.name from Pet p", String.class).getResultList())))
			.isInstanceOf(NoTenantBoundException.class);
		assertThatThrownBy(() -> {
			try (Connection c = this.tenancy.dataSource().getConnection(); Statement s = c.createStatement()) {
				s.executeQuery("select t.name from pet_type t join pet p on p.type_id = t.id");
			}
		}).isInstanceOf(NoTenantBoundException.class).hasMessageContaining("pet_type");
		// A write with no tenant bound is refused too, even of a reference table: writes go through write().
		assertThat(rootCause(() -> this.sessionFactory.inTransaction(session -> session.persist(new PetType(3, "eel")))))
			.isInstanceOf(NoTenantBoundException.class)
			.hasMessageContaining("insert into pet_type");
		assertThat(names("shard-1")).containsExactly("cat", "dog");

		// With a tenant bound, a write to a reference table is refused too (it would change one shard only), while a
		// tenant write that reads the reference table runs.
		assertThat(rootCause(() -> TenantContext.runAs("acme", () -> this.sessionFactory.inTransaction(session -> session
			.persist(new PetType(3, "eel")))))).isInstanceOf(ReferenceWriteException.class)
			.hasMessageContaining("pet_type");
		assertThat(rootCause(() -> TenantContext.callAs("acme", () -> {
			try (Connection c = this.tenancy.dataSource().getConnection(); Statement s = c.createStatement()) {
				return s.executeUpdate("update pet_type set name = 'kitten' where id = 1");
			}
		}))).isInstanceOf(ReferenceWriteException.class);
		int copied = TenantContext.callAs("acme", () -> {
			try (Connection c = this.tenancy.dataSource().getConnection(); Statement s = c.createStatement()) {
				return s.executeUpdate("insert into pet (id, tenant_id, name, type_id) select random_uuid(), 'acme', "
						+ "'Felix', id from pet_type where name = 'cat'");
			}
		});
		assertThat(copied).isEqualTo(1);
		assertThat(names("shard-1")).containsExactly("cat", "dog");
		assertThat(names("shard-2")).containsExactly("cat", "dog");

		// With the tenant bound, the join runs on its shard: the foreign key to the reference table holds there.
		List<String> joined = TenantContext.callAs("acme", () -> read(session -> session
			.createQuery("select p.name || ':' || p.type.name from Pet p order by p.name", String.class)
			.getResultList()));
		assertThat(joined).containsExactly("Felix:cat", "Tom:cat");
	}

	@Test
	@DisplayName("failing statements are refused on a trial run: nothing recorded, no shard changed")
	void failingWriteRecordsNothing() {
		this.tenancy.referenceTables().write(List.of(ReferenceStatement.of(
				"INSERT INTO pet_type (id, name) VALUES (?, ?)", 1, "cat")));
		long before = this.tenancy.referenceTables().verify().latestVersion();

		assertThatThrownBy(() -> this.tenancy.referenceTables()
			.write(List.of(ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", 2, "bird"),
					ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", 3, "cat"))))
			.isInstanceOf(ReferenceWriteException.class)
			.hasMessageContaining("nothing recorded");

		ReferenceDataReport report = this.tenancy.referenceTables().verify();
		assertThat(report.latestVersion()).isEqualTo(before);
		assertThat(report.consistent()).isTrue();
		assertThat(names("shard-1")).containsExactly("cat");
		assertThat(names("shard-2")).containsExactly("cat");
	}

	@Test
	@DisplayName("a shard down during a write makes it fail, nothing changed; reads go to the shard that is up; "
			+ "once it is back, writes reach both")
	void shardDownDuringWrite() {
		this.tenancy.referenceTables().write(List.of(ReferenceStatement.of(
				"INSERT INTO pet_type (id, name) VALUES (?, ?)", 1, "cat")));
		this.server.stop(); // shard-2 is down: its server no longer accepts connections

		assertThatThrownBy(() -> this.tenancy.referenceTables().write(List.of(ReferenceStatement.of(
				"INSERT INTO pet_type (id, name) VALUES (?, ?)", 2, "dog"))))
			.isInstanceOfSatisfying(ReferenceWriteException.class, ex -> {
				assertThat(ex.shardId()).isEqualTo("shard-2");
				assertThat(ex.getMessage()).contains("cannot be reached", "nothing recorded");
			});
		assertThat(names("shard-1")).containsExactly("cat");
		ReferenceDataReport down = this.tenancy.referenceTables().verify();
		assertThat(down.unreachable()).containsExactly("shard-2");
		// Tenant-free reads go to the shard that is up.
		for (int i = 0; i < 4; i++) {
			long count = read(session -> session.createQuery("select count(t) from PetType t", Long.class)
				.getSingleResult());
			assertThat(count).isEqualTo(1);
		}

		restartServer();
		io.github.shardtenancy.ReconciliationReport reconciled = this.tenancy.reconcile();
		assertThat(reconciled.referenceData()).isNotNull();
		assertThat(reconciled.referenceData().consistent()).as(reconciled.toString()).isTrue();
		long version = this.tenancy.referenceTables().write(List.of(ReferenceStatement.of(
				"INSERT INTO pet_type (id, name) VALUES (?, ?)", 2, "dog")));
		ReferenceDataReport repaired = this.tenancy.referenceTables().verify();
		assertThat(repaired.consistent()).as(repaired.toString()).isTrue();
		assertThat(repaired.shardVersions()).containsEntry("shard-1", version).containsEntry("shard-2", version);
		// Repair is idempotent: nothing changes.
		assertThat(this.tenancy.referenceTables().repair()).isEqualTo(version);
		assertThat(names("shard-2")).containsExactly("cat", "dog");
	}

	@Test
	@DisplayName("a shard registered at runtime has the reference data before it is ACTIVE; a move leaves it alone")
	void runtimeShardAndMove() throws Exception {
		this.tenancy.referenceTables().write(List.of(ReferenceStatement.of(
				"INSERT INTO pet_type (id, name) VALUES (?, ?)", 1, "cat"),
				ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", 2, "dog")));
		this.tenancy.referenceTables().write(List.of(ReferenceStatement.of(
				"UPDATE pet_type SET name = ? WHERE id = ?", "hound", 2)));
		HikariConfig config = pool(memUrl("shard-3"));
		this.runtimeUrls.add(memUrl("shard-3"));

		this.tenancy.admin().registerShard("shard-3", null, config);

		assertThat(names("shard-3")).containsExactly("cat", "hound");
		assertThat(this.tenancy.referenceTables().verify().consistent()).isTrue();

		this.tenancy.admin().create("acme", "shard-1");
		TenantContext.runAs("acme", () -> this.sessionFactory.inTransaction(session -> session
			.persist(new Pet("Rex", session.find(PetType.class, 2)))));
		MoveResult moved = this.tenancy.mover().moveAndWait("acme", "shard-3", MoveSettings.defaults());
		assertThat(moved.step()).isEqualTo(MoveStep.DONE);
		assertThat(moved.rowsCopied()).containsEntry("pet", 1L).doesNotContainKey("pet_type");
		for (String shardId : List.of("shard-1", "shard-2", "shard-3")) {
			assertThat(names(shardId)).as(shardId).containsExactly("cat", "hound");
		}
		String type = TenantContext.callAs("acme", () -> read(session -> session
			.createQuery("select p.type.name from Pet p", String.class).getSingleResult()));
		assertThat(type).isEqualTo("hound");
	}

	@Test
	@DisplayName("a retry never runs a reference write again: the attempt that wrote and then failed is UnsafeToRerun")
	void retryDoesNotRepeatAWrite() {
		this.tenancy.admin().create("acme", "shard-1");
		io.github.shardtenancy.retry.ShardTenancyRetry retry = new io.github.shardtenancy.retry.ShardTenancyRetry(
				this.tenancy.router()::invalidate, io.github.shardtenancy.retry.RetrySettings.defaults(),
				this.tenancy.observer());
		java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();

		assertThatThrownBy(() -> TenantContext.callAs("acme", () -> retry.call(() -> {
			attempts.incrementAndGet();
			this.tenancy.referenceTables().write(List.of(ReferenceStatement.of(
					"UPDATE pet_type SET name = name || '+' WHERE id = ?", 1)));
			// A failure the retry would otherwise run the work again after.
			throw new io.github.shardtenancy.ShardUnavailableException("acme", "shard-1", 1, new SQLException("down"));
		}))).isInstanceOf(io.github.shardtenancy.UnsafeToRerunException.class);
		assertThat(attempts).hasValue(1);
	}

	@Test
	@DisplayName("concurrent writes: each applied once on every shard, in the same order, shards identical")
	void concurrentWrites() throws Exception {
		int writers = 4;
		int writesEach = 5;
		java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(writers);
		try {
			List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
			for (int w = 0; w < writers; w++) {
				int writer = w;
				futures.add(pool.submit(() -> {
					for (int i = 0; i < writesEach; i++) {
						int id = writer * 100 + i;
						// Each write also renames row 1, so the final name depends on the order of the writes.
						this.tenancy.referenceTables().write(List.of(
								ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", id + 10,
										"type-" + id),
								ReferenceStatement.of("MERGE INTO pet_type (id, name) KEY (id) VALUES (1, ?)",
										"last-" + id)));
					}
					return null;
				}));
			}
			for (java.util.concurrent.Future<?> future : futures) {
				future.get();
			}
		}
		finally {
			pool.shutdownNow();
		}

		List<String> first = names("shard-1");
		assertThat(first).hasSize(writers * writesEach + 1);
		assertThat(names("shard-2")).isEqualTo(first);
		ReferenceDataReport report = this.tenancy.referenceTables().verify();
		assertThat(report.consistent()).as(report.toString()).isTrue();
		assertThat(report.shardVersions().values()).containsOnly(report.latestVersion());
	}

	@Test
	@DisplayName("verify reports a shard whose reference rows differ although its version is current")
	void verifyDetectsDifference() throws SQLException {
		this.tenancy.referenceTables().write(List.of(ReferenceStatement.of(
				"INSERT INTO pet_type (id, name) VALUES (?, ?)", 1, "cat")));
		try (Connection c = this.tenancy.topology().dataSource("shard-2").getConnection();
				Statement s = c.createStatement()) {
			s.executeUpdate("UPDATE pet_type SET name = 'kat' WHERE id = 1"); // behind the library's back
		}

		ReferenceDataReport report = this.tenancy.referenceTables().verify();

		assertThat(report.behind()).isEmpty();
		assertThat(report.differing()).containsExactly("pet_type");
		assertThat(report.consistent()).isFalse();
		io.github.shardtenancy.ReconciliationReport reconciled = this.tenancy.reconcile();
		assertThat(reconciled.isClean()).isFalse();
		assertThat(reconciled.referenceData().differing()).containsExactly("pet_type");
	}

	private static Throwable rootCause(org.assertj.core.api.ThrowableAssert.ThrowingCallable work) {
		Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(work);
		assertThat(thrown).as("thrown").isNotNull();
		while (thrown.getCause() != null) {
			thrown = thrown.getCause();
		}
		return thrown;
	}

	private <T> T read(java.util.function.Function<org.hibernate.Session, T> work) {
		return this.sessionFactory.fromTransaction(work);
	}

	private List<String> names(String shardId) {
		DataSource dataSource = this.tenancy.topology().dataSource(shardId);
		List<String> names = new ArrayList<>();
		try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT name FROM pet_type ORDER BY id")) {
			while (rs.next()) {
				names.add(rs.getString(1));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		return names;
	}

	private void restartServer() {
		try {
			this.server = Server.createTcpServer("-tcpPort", String.valueOf(this.port), "-ifNotExists", "-baseDir",
					this.baseDir).start();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private String memUrl(String database) {
		return "jdbc:h2:mem:" + this.name + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	private String tcpUrl(String database) {
		return "jdbc:h2:tcp://localhost:" + this.port + "/" + this.name + "-" + database + ";LOCK_TIMEOUT=10000";
	}

	private static HikariConfig pool(String url) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setMaximumPoolSize(4);
		config.setConnectionTimeout(1_000);
		config.setInitializationFailTimeout(-1);
		return config;
	}

	private static void shutdown(String url) {
		try (Connection c = java.sql.DriverManager.getConnection(url); Statement s = c.createStatement()) {
			s.execute("SHUTDOWN");
		}
		catch (SQLException ex) {
			// already gone
		}
	}

}
