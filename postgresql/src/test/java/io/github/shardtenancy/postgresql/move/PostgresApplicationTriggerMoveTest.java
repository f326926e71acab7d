package io.github.shardtenancy.postgresql.move;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.MoveRefusedException;
import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.move.AuditedItems;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Online moves of a tenant whose table {@code item} has a trigger of the application writing an audit row into a
 * second tenant table, {@code item_audit}, for every insert, update and delete, under writers of the moving tenant
 * and of a neighbour (issue 27). The mover's writes (copy, catch-up, clean, abort) run with
 * {@code session_replication_role = replica}, so the trigger fires only for the application's own writes: every
 * audit row exists once, on the owner, and the outbox (no tenant table) the trigger also writes holds one event per
 * write of the application; an abort leaves nothing of the tenant on the target; a role that may not set
 * replica is refused before anything is marked, and so is a trigger enabled {@code ALWAYS}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Online move on PostgreSQL of a table with an application trigger writing audit rows into another "
		+ "tenant table")
class PostgresApplicationTriggerMoveTest {

	private static final String TENANT = "acme";

	private static final String NEIGHBOUR = "globex";

	private static final String PLAIN_ROLE = "audit_app";

	private static final String GRANTED_ROLE = "audit_mover";

	private static final AtomicInteger RUNS = new AtomicInteger();

	private ScratchPostgres postgres;

	private final List<HikariDataSource> pools = new ArrayList<>();

	private final AtomicReference<MoveStep> failAfter = new AtomicReference<>();

	/** Run by the move hook after each step, on the mover's thread, or {@code null}. */
	private final AtomicReference<java.util.function.Consumer<MoveStep>> afterStep = new AtomicReference<>();

	private ShardTenancy tenancy;

	private DataSource shard1;

	private DataSource shard2;

	@BeforeAll
	void server() throws SQLException {
		this.postgres = ScratchPostgres.start("app-trigger");
		try (Connection c = superuser("postgres"); Statement s = c.createStatement()) {
			s.execute("CREATE ROLE " + PLAIN_ROLE + " LOGIN PASSWORD '" + PLAIN_ROLE + "' NOSUPERUSER NOBYPASSRLS");
			s.execute("CREATE ROLE " + GRANTED_ROLE + " LOGIN PASSWORD '" + GRANTED_ROLE
					+ "' NOSUPERUSER NOBYPASSRLS");
			s.execute("GRANT SET ON PARAMETER session_replication_role TO " + GRANTED_ROLE);
		}
	}

	@AfterEach
	void stop() {
		this.failAfter.set(null);
		this.afterStep.set(null);
		if (this.tenancy != null) {
			this.tenancy.close();
			this.tenancy = null;
		}
		this.pools.forEach(HikariDataSource::close);
		this.pools.clear();
	}

	@AfterAll
	void stopServer() {
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	@Test
	@DisplayName("superuser: the move is DONE under writers; each audit row of the application's writes exists once, "
			+ "on the owner; the mover wrote none on the target or the source; the neighbour is untouched")
	void movesWithoutFiringTheTrigger() throws Exception {
		start(null);
		moveUnderWriters();
	}

	@Test
	@DisplayName("a role granted SET ON PARAMETER session_replication_role (row-level security on, multi-row INSERT "
			+ "copy): DONE, each audit row once on the owner")
	void grantedRoleMovesWithoutFiringTheTrigger() throws Exception {
		start(GRANTED_ROLE);
		moveUnderWriters();
	}

	@Test
	@DisplayName("a move aborted after its catch-up leaves no row of the tenant on the target, and no audit row "
			+ "written by the mover on the source")
	void abortLeavesNothingOnTheTarget() throws Exception {
		start(null);
		AuditedItems writers = new AuditedItems(this.tenancy);
		writers.insert(TENANT, 1, 200);
		writers.start(TENANT, 3, 1, 200);
		this.failAfter.set(MoveStep.CAUGHT_UP);
		try {
			writers.awaitWrites(200);
			assertThatThrownBy(() -> this.tenancy.mover().moveAndWait(TENANT, "shard-2", MoveSettings.defaults()))
				.isInstanceOf(MoveException.class)
				.hasMessageContaining("aborted");
			writers.awaitWrites(100);
		}
		finally {
			writers.stop();
		}
		assertAbortedOnSource();
		assertThat(AuditedItems.audit(this.shard1, TENANT)).as("audit rows on the owner")
			.isEqualTo(writers.expectedAudit(TENANT));
	}

	@Test
	@DisplayName("with the triggers off the catch-up still checks foreign keys: a row written during the move that "
			+ "references a row missing on the target fails the move with 23503, and the abort leaves nothing there")
	void catchUpChecksForeignKeys() throws Exception {
		start(null);
		AuditedItems writers = new AuditedItems(this.tenancy);
		writers.insert(TENANT, 1, 50);
		this.afterStep.set(step -> {
			if (step != MoveStep.COPIED) {
				return;
			}
			// A warehouse only the source has, and an item of the tenant in it, written while the move catches up.
			try (Connection c = this.shard1.getConnection(); Statement s = c.createStatement()) {
				s.execute("INSERT INTO warehouse VALUES (2)");
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
			try (io.github.shardtenancy.TenantContext.Scope scope = io.github.shardtenancy.TenantContext.bind(TENANT);
					Connection c = this.tenancy.dataSource().getConnection(); Statement s = c.createStatement()) {
				s.execute("INSERT INTO item (tenant_id, id, qty, warehouse_id) VALUES ('" + TENANT + "', 999, 1, 2)");
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		});

		assertThatThrownBy(() -> this.tenancy.mover().moveAndWait(TENANT, "shard-2", MoveSettings.defaults()))
			.isInstanceOf(MoveException.class)
			.hasMessageContaining("foreign key")
			.hasMessageContaining("references no row of warehouse")
			.hasMessageContaining("aborted");

		assertAbortedOnSource();
		assertThat(AuditedItems.audit(this.shard1, TENANT).values().stream().mapToInt(Integer::intValue).sum())
			.as("audit rows on the source: the application's 51 inserts").isEqualTo(51);
	}

	@Test
	@DisplayName("a role that may not set session_replication_role: refused before the move starts, naming the "
			+ "table, the trigger and the GRANT; nothing marked, nothing copied")
	void roleWithoutThePrivilegeIsRefused() throws Exception {
		start(PLAIN_ROLE);
		AuditedItems writers = new AuditedItems(this.tenancy);
		writers.insert(TENANT, 1, 20);
		long version = this.tenancy.admin().find(TENANT).orElseThrow().version();

		assertThatThrownBy(() -> this.tenancy.mover().moveAndWait(TENANT, "shard-2", MoveSettings.defaults()))
			.isInstanceOfSatisfying(MoveRefusedException.class, ex -> {
				assertThat(ex.reasons()).singleElement().asString()
					.contains("table item, trigger item_audit_trigger")
					.contains("GRANT SET ON PARAMETER session_replication_role TO " + PLAIN_ROLE);
				assertThat(ex.getMessage()).contains("nothing marked, nothing copied").contains("shard-1");
			});

		assertNothingStarted(version);
		assertThat(AuditedItems.audit(this.shard1, TENANT)).isEqualTo(writers.expectedAudit(TENANT));
	}

	@Test
	@DisplayName("a trigger enabled ALWAYS (fires with replica too): refused before the move starts, naming it")
	void alwaysTriggerIsRefused() throws Exception {
		start(null);
		try (Connection c = this.shard2.getConnection(); Statement s = c.createStatement()) {
			s.execute("ALTER TABLE item ENABLE ALWAYS TRIGGER item_audit_trigger");
		}
		new AuditedItems(this.tenancy).insert(TENANT, 1, 20);
		long version = this.tenancy.admin().find(TENANT).orElseThrow().version();

		assertThatThrownBy(() -> this.tenancy.mover().moveAndWait(TENANT, "shard-2", MoveSettings.defaults()))
			.isInstanceOfSatisfying(MoveRefusedException.class, ex -> {
				assertThat(ex.reasons()).singleElement().asString()
					.contains("table item, trigger item_audit_trigger")
					.contains("ALWAYS");
				assertThat(ex.shardId()).isEqualTo("shard-2");
			});

		assertNothingStarted(version);
	}

	private void moveUnderWriters() throws Exception {
		AuditedItems writers = new AuditedItems(this.tenancy);
		writers.insert(TENANT, 1, 300);
		writers.insert(NEIGHBOUR, 1, 50);
		writers.start(TENANT, 3, 1, 300);
		writers.start(NEIGHBOUR, 1, 1, 50);
		MoveResult result;
		try {
			writers.awaitWrites(300);
			result = this.tenancy.mover().moveAndWait(TENANT, "shard-2", MoveSettings.defaults());
			writers.awaitWrites(200);
		}
		finally {
			writers.stop();
		}
		assertThat(result.step()).isEqualTo(MoveStep.DONE);
		assertThat(this.tenancy.router().route(TENANT).shardId()).isEqualTo("shard-2");
		assertThat(AuditedItems.audit(this.shard2, TENANT)).as("audit rows of the moved tenant on its new owner")
			.isEqualTo(writers.expectedAudit(TENANT));
		assertThat(AuditedItems.rows(this.shard1, TENANT)).as("rows of the moved tenant left on its source")
			.isZero();
		assertThat(AuditedItems.audit(this.shard1, NEIGHBOUR)).as("audit rows of the neighbour")
			.isEqualTo(writers.expectedAudit(NEIGHBOUR));
		assertThat(AuditedItems.rows(this.shard2, NEIGHBOUR)).isZero();
		assertThat(outboxEvents(this.shard1, TENANT) + outboxEvents(this.shard2, TENANT))
			.as("outbox events of the moved tenant on both shards: one per write of the application")
			.isEqualTo(writers.expectedAudit(TENANT).values().stream().mapToLong(Integer::longValue).sum());
	}

	private static long outboxEvents(DataSource shard, String tenant) throws SQLException {
		try (Connection c = shard.getConnection(); Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM item_outbox WHERE tenant_id = '" + tenant + "'")) {
			rs.next();
			return rs.getLong(1);
		}
	}

	private void assertAbortedOnSource() throws SQLException {
		DirectoryEntry entry = this.tenancy.admin().find(TENANT).orElseThrow();
		assertThat(entry.state()).isEqualTo(TenantState.ACTIVE);
		assertThat(entry.shardId()).isEqualTo("shard-1");
		assertThat(this.tenancy.mover().findActive(TENANT)).isEmpty();
		assertThat(AuditedItems.rows(this.shard2, TENANT)).as("rows of the tenant left on the target").isZero();
	}

	private void assertNothingStarted(long version) throws SQLException {
		DirectoryEntry entry = this.tenancy.admin().find(TENANT).orElseThrow();
		assertThat(entry.state()).isEqualTo(TenantState.ACTIVE);
		assertThat(entry.shardId()).isEqualTo("shard-1");
		assertThat(entry.version()).as("directory version: nothing marked").isEqualTo(version);
		assertThat(this.tenancy.mover().findActive(TENANT)).isEmpty();
		assertThat(AuditedItems.rows(this.shard2, TENANT)).as("rows copied to the target").isZero();
		try (Connection c = this.shard1.getConnection(); Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM shard_capture WHERE tenant_id = '" + TENANT + "'")) {
			rs.next();
			assertThat(rs.getLong(1)).as("change capture of the tenant on the source").isZero();
		}
	}

	/**
	 * Creates the databases of a run and starts the tenancy: as the superuser, or (role not {@code null}) once as the
	 * owner, which installs the fence, then as that role, granted what an application's role is granted.
	 */
	private void start(String role) throws SQLException {
		int run = RUNS.incrementAndGet();
		String directoryName = "directory_" + run;
		List<String> shards = List.of("shard1_" + run, "shard2_" + run);
		HikariDataSource directory = this.postgres.createDatabase(directoryName, 4);
		this.pools.add(directory);
		ShardTenancyMigrations.migrateDirectory(directory);
		for (int i = 0; i < shards.size(); i++) {
			HikariDataSource owner = this.postgres.createDatabase(shards.get(i), 10);
			this.pools.add(owner);
			ShardTenancyMigrations.migrateShard(owner, "shard-" + (i + 1), List.of());
			try (Connection c = owner.getConnection(); Statement s = c.createStatement()) {
				// warehouse is no tenant table: the move copies no row of it, and the keys to it must hold on the
				// target.
				s.execute("CREATE TABLE warehouse (id BIGINT PRIMARY KEY)");
				s.execute("INSERT INTO warehouse VALUES (1)");
				s.execute("CREATE TABLE item (tenant_id VARCHAR(64) NOT NULL, id BIGINT NOT NULL, qty INT NOT NULL, "
						+ "warehouse_id BIGINT REFERENCES warehouse (id), PRIMARY KEY (tenant_id, id))");
				s.execute("CREATE TABLE item_audit (tenant_id VARCHAR(64) NOT NULL, id uuid NOT NULL DEFAULT "
						+ "gen_random_uuid(), item_id BIGINT NOT NULL, op VARCHAR(8) NOT NULL, "
						+ "PRIMARY KEY (tenant_id, id))");
				// An outbox, no tenant table: the relay would publish every row of it.
				s.execute("CREATE TABLE item_outbox (seq BIGSERIAL PRIMARY KEY, tenant_id VARCHAR(64), op VARCHAR(8))");
				s.execute("CREATE FUNCTION item_audit_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
						+ "INSERT INTO item_outbox (tenant_id, op) VALUES (COALESCE(NEW.tenant_id, OLD.tenant_id), "
						+ "TG_OP); "
						+ "IF TG_OP = 'DELETE' THEN "
						+ "INSERT INTO item_audit (tenant_id, item_id, op) VALUES (OLD.tenant_id, OLD.id, TG_OP); "
						+ "RETURN OLD; END IF; "
						+ "INSERT INTO item_audit (tenant_id, item_id, op) VALUES (NEW.tenant_id, NEW.id, TG_OP); "
						+ "RETURN NEW; END $$");
				s.execute("CREATE TRIGGER item_audit_trigger AFTER INSERT OR UPDATE OR DELETE ON item FOR EACH ROW "
						+ "EXECUTE FUNCTION item_audit_write()");
				s.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO " + PLAIN_ROLE
						+ ", " + GRANTED_ROLE);
				s.execute("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO " + PLAIN_ROLE + ", "
						+ GRANTED_ROLE);
			}
		}
		List<DataSource> owners = List.of(this.pools.get(1), this.pools.get(2));
		if (role == null) {
			this.tenancy = tenancy(directory, owners.get(0), owners.get(1));
		}
		else {
			try (ShardTenancy installing = tenancy(directory, owners.get(0), owners.get(1))) {
				installing.start();
			}
			this.tenancy = tenancy(directory, pool(shards.get(0), role), pool(shards.get(1), role));
		}
		this.tenancy.start();
		this.shard1 = owners.get(0);
		this.shard2 = owners.get(1);
		this.tenancy.admin().create(TENANT, "shard-1");
		this.tenancy.admin().create(NEIGHBOUR, "shard-1");
	}

	private ShardTenancy tenancy(DataSource directory, DataSource shard1, DataSource shard2) {
		return ShardTenancy.builder()
			.directory(directory)
			.shard("shard-1", shard1)
			.shard("shard-2", shard2)
			.tenantTables(List.of(new TenantTable("item", "tenant_id"), new TenantTable("item_audit", "tenant_id")))
			.moveHook((moveId, step) -> {
				java.util.function.Consumer<MoveStep> extra = this.afterStep.get();
				if (extra != null) {
					extra.accept(step);
				}
				if (step == this.failAfter.get()) {
					throw new IllegalStateException("the test fails the move after " + step);
				}
			})
			.actor("app-trigger@test")
			.build();
	}

	private HikariDataSource pool(String database, String role) {
		HikariDataSource pool = this.postgres.poolAs(database, role, 10);
		this.pools.add(pool);
		return pool;
	}

	private Connection superuser(String database) throws SQLException {
		return DriverManager.getConnection(this.postgres.server().jdbcUrl().replace("/postgres", "/" + database),
				this.postgres.server().user(), this.postgres.server().password());
	}

}
