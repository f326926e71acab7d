package io.github.shardtenancy.testing.move;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.InvalidTenantIdException;
import io.github.shardtenancy.MoveCheck;
import io.github.shardtenancy.MoveRefusedException;
import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.UnknownShardException;
import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The pre-flight check of a move ({@code TenantMover.check}) and the same checks run by every move before it records
 * anything (issue 27, point 4): schema drift between the source and the target (a missing column, another type, a
 * {@code NOT NULL} column only the target has, a missing table), a row of another tenant on the target with one of the
 * tenant's primary keys or unique keys, the tenant's state, the rows and bytes to copy; a check changes nothing, and a
 * move the check would stop is refused with {@link MoveRefusedException}, nothing marked and nothing copied. Tables:
 * {@code note} (primary key {@code id} alone, unique index on {@code code}) and {@code tag} (composite key). Subclasses
 * give the databases.
 */
public abstract class MoveCheckScenarios {

	private static final String TENANT = "acme";

	private ShardTenancy tenancy;

	private DataSource target;

	/** @return a new, empty directory database */
	protected abstract DataSource directory();

	/**
	 * @param shardId the shard's id
	 * @return a new, empty shard database, its pool with at least 8 connections
	 */
	protected abstract DataSource shard(String shardId);

	/** @return whether the database estimates the bytes of rows (PostgreSQL), or not (H2: {@code -1}) */
	protected abstract boolean estimatesBytes();

	/** Closes what {@link #directory()} and {@link #shard(String)} opened. */
	protected abstract void closeDatabases();

	@BeforeEach
	void start() throws SQLException {
		DataSource directory = directory();
		DataSource shard1 = shard("shard-1");
		this.target = shard("shard-2");
		ShardTenancyMigrations.migrateDirectory(directory);
		for (Map.Entry<String, DataSource> shard : Map.of("shard-1", shard1, "shard-2", this.target).entrySet()) {
			ShardTenancyMigrations.migrateShard(shard.getValue(), shard.getKey(), List.of());
			try (Connection c = shard.getValue().getConnection(); Statement s = c.createStatement()) {
				s.execute("CREATE TABLE note (tenant_id VARCHAR(64) NOT NULL, id BIGINT NOT NULL, code VARCHAR(20), "
						+ "body VARCHAR(200), PRIMARY KEY (id))");
				s.execute("CREATE UNIQUE INDEX note_code ON note (code)");
				s.execute("CREATE TABLE tag (tenant_id VARCHAR(64) NOT NULL, note_id BIGINT NOT NULL, "
						+ "name VARCHAR(40) NOT NULL, PRIMARY KEY (tenant_id, note_id, name))");
			}
		}
		this.tenancy = ShardTenancy.builder()
			.directory(directory)
			.shard("shard-1", shard1)
			.shard("shard-2", this.target)
			.tenantTables(List.of(new TenantTable("note", "tenant_id"), new TenantTable("tag", "tenant_id")))
			.actor("move-check@test")
			.build();
		this.tenancy.start();
		this.tenancy.admin().create(TENANT, "shard-1");
		this.tenancy.admin().create("globex", "shard-1");
		this.tenancy.admin().create("initech", "shard-2");
		for (int i = 1; i <= 20; i++) {
			execute(TENANT, "INSERT INTO note (tenant_id, id, code, body) VALUES ('acme', " + i + ", 'A-" + i
					+ "', 'note " + i + "')");
		}
		for (int i = 1; i <= 10; i++) {
			execute(TENANT, "INSERT INTO tag (tenant_id, note_id, name) VALUES ('acme', " + i + ", 'red')");
		}
		execute("globex", "INSERT INTO note (tenant_id, id, code) VALUES ('globex', 101, 'G-1')");
	}

	@AfterEach
	void stop() {
		if (this.tenancy != null) {
			this.tenancy.close();
		}
		closeDatabases();
	}

	@Test
	@DisplayName("same schema, no clash: the check passes, counts the rows per table (and their bytes where the "
			+ "database estimates them), changes nothing; the move is DONE")
	void passesAndCounts() {
		DirectoryEntry before = entry();

		MoveCheck check = this.tenancy.mover().check(TENANT, "shard-2");

		assertThat(check.problems()).isEmpty();
		assertThat(check.passed()).isTrue();
		assertThat(check.sourceShardId()).isEqualTo("shard-1");
		assertThat(check.targetShardId()).isEqualTo("shard-2");
		assertThat(check.rows()).containsEntry("note", 20L).containsEntry("tag", 10L);
		assertThat(check.totalRows()).isEqualTo(30);
		if (estimatesBytes()) {
			assertThat(check.bytes()).as("bytes of the tenant's rows").isPositive();
		}
		else {
			assertThat(check.bytes()).isEqualTo(-1);
		}
		assertNothingStarted(before);

		MoveResult result = this.tenancy.mover().moveAndWait(TENANT, "shard-2", MoveSettings.defaults());
		assertThat(result.step()).isEqualTo(MoveStep.DONE);
		assertThat(rowsOnTarget()).isEqualTo(20);
	}

	@Test
	@DisplayName("schema drift: a column missing on the target and a NOT NULL column only the target has are named by "
			+ "the check, and the move is refused before it starts, nothing marked, nothing copied")
	void columnDrift() throws SQLException {
		alterTarget("ALTER TABLE note DROP COLUMN body", "ALTER TABLE tag ADD COLUMN colour VARCHAR(10) NOT NULL");
		DirectoryEntry before = entry();

		MoveCheck check = this.tenancy.mover().check(TENANT, "shard-2");

		assertThat(check.passed()).isFalse();
		assertThat(check.problems()).hasSize(2);
		assertThat(check.problems()).anySatisfy(p -> assertThat(p).containsIgnoringCase("table note: column body")
			.contains("source shard 'shard-1'", "not on target shard 'shard-2'", "migrate the target's schema"));
		assertThat(check.problems()).anySatisfy(p -> assertThat(p).containsIgnoringCase("column colour")
			.contains("NOT NULL without a default", "shard-2"));
		assertThat(check.rows()).containsEntry("note", 20L);
		assertNothingStarted(before);

		assertRefused(check.problems());
		assertNothingStarted(before);
	}

	@Test
	@DisplayName("a column of another type on the target is named with both types")
	void typeDrift() throws SQLException {
		alterTarget("ALTER TABLE note DROP COLUMN body", "ALTER TABLE note ADD COLUMN body INTEGER");

		MoveCheck check = this.tenancy.mover().check(TENANT, "shard-2");

		assertThat(check.problems()).singleElement().asString()
			.containsIgnoringCase("table note: column body is ")
			.containsIgnoringCase("int")
			.contains("source shard 'shard-1'", "target shard 'shard-2'", "same schema");
		assertRefused(check.problems());
	}

	@Test
	@DisplayName("rows of another tenant on the target with one of the tenant's primary keys and with one of its "
			+ "unique codes: each named with the key, a row and its tenant; the move is refused, nothing copied")
	void keyClash() {
		execute("initech", "INSERT INTO note (tenant_id, id, code) VALUES ('initech', 7, 'I-1')");
		execute("initech", "INSERT INTO note (tenant_id, id, code) VALUES ('initech', 500, 'A-3')");
		DirectoryEntry before = entry();

		MoveCheck check = this.tenancy.mover().check(TENANT, "shard-2");

		assertThat(check.problems()).hasSize(2);
		assertThat(check.problems()).anySatisfy(p -> assertThat(p).containsIgnoringCase("table note: 1 row(s)")
			.containsIgnoringCase("(id)")
			.containsIgnoringCase("id=7 (tenant initech)")
			.contains("target shard 'shard-2'"));
		assertThat(check.problems()).anySatisfy(p -> assertThat(p).containsIgnoringCase("(code)")
			.containsIgnoringCase("code=A-3 (tenant initech)"));
		assertNothingStarted(before);

		assertRefused(check.problems());
		assertNothingStarted(before);
	}

	@Test
	@DisplayName("a table missing on the target and a target that is the tenant's shard are problems of the check; "
			+ "an unknown tenant or shard and a bad tenant id are typed errors")
	void missingTableStateAndBadInput() throws SQLException {
		alterTarget("DROP TABLE tag");

		MoveCheck check = this.tenancy.mover().check(TENANT, "shard-2");
		assertThat(check.problems()).singleElement().asString()
			.containsIgnoringCase("table tag does not exist on shard 'shard-2'");

		assertThat(this.tenancy.mover().check(TENANT, "shard-1").problems())
			.anySatisfy(p -> assertThat(p).contains("already lives on shard 'shard-1'"));
		assertThatThrownBy(() -> this.tenancy.mover().check("nobody", "shard-2"))
			.isInstanceOf(UnknownTenantException.class);
		assertThatThrownBy(() -> this.tenancy.mover().check(TENANT, "shard-9"))
			.isInstanceOf(UnknownShardException.class);
		assertThatThrownBy(() -> this.tenancy.mover().check("no tenant!", "shard-2"))
			.isInstanceOf(InvalidTenantIdException.class);
	}

	private void assertRefused(List<String> problems) {
		assertThatThrownBy(() -> this.tenancy.mover().moveAndWait(TENANT, "shard-2", MoveSettings.defaults()))
			.isInstanceOfSatisfying(MoveRefusedException.class, ex -> {
				assertThat(ex.reasons()).containsExactlyElementsOf(problems);
				assertThat(ex.getMessage()).contains("nothing marked, nothing copied");
				assertThat(ex.shardId()).isEqualTo("shard-2");
			});
	}

	private DirectoryEntry entry() {
		return this.tenancy.admin().find(TENANT).orElseThrow();
	}

	private void assertNothingStarted(DirectoryEntry before) {
		DirectoryEntry after = entry();
		assertThat(after.state()).isEqualTo(TenantState.ACTIVE);
		assertThat(after.shardId()).isEqualTo("shard-1");
		assertThat(after.version()).as("directory version: nothing marked").isEqualTo(before.version());
		assertThat(this.tenancy.mover().findActive(TENANT)).isEmpty();
		assertThat(rowsOnTarget()).as("rows of the tenant on the target").isZero();
	}

	/** @return the tenant's notes on the target, read with the tenant bound to the owner's connection */
	private long rowsOnTarget() {
		try (Connection c = this.target.getConnection(); Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM note WHERE tenant_id = '" + TENANT + "'")) {
			rs.next();
			return rs.getLong(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Changes the target's schema as its owner, with no tenant bound. */
	private void alterTarget(String... statements) throws SQLException {
		try (Connection c = this.target.getConnection(); Statement s = c.createStatement()) {
			for (String sql : statements) {
				s.execute(sql);
			}
		}
	}

	/** Runs one statement through the library with the tenant bound, in auto-commit. */
	private void execute(String tenant, String sql) {
		try (TenantContext.Scope scope = TenantContext.bind(tenant);
				Connection c = this.tenancy.dataSource().getConnection(); Statement s = c.createStatement()) {
			s.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
