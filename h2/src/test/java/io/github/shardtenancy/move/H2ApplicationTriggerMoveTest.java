package io.github.shardtenancy.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import javax.sql.DataSource;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.MoveRefusedException;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.H2MemoryDatabases;
import io.github.shardtenancy.testing.move.AuditedItems;
import org.h2.api.Trigger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A tenant table of an H2 shard with a trigger of the application (a Java class writing an audit row into a second
 * tenant table for every insert, update and delete): H2 has no replica mode, so the mover's writes would fire it
 * (issue 27: audit rows created again by the copy, left on the target by an abort); the move is refused before it
 * starts, naming the table, the trigger and its class, with nothing marked and nothing copied. Without the trigger
 * the same tenant moves.
 */
@DisplayName("Online move on H2 of a table with an application trigger: refused before it starts")
class H2ApplicationTriggerMoveTest {

	private static final String TENANT = "acme";

	private final H2MemoryDatabases databases = new H2MemoryDatabases("app-trigger");

	private ShardTenancy tenancy;

	private DataSource shard1;

	private DataSource shard2;

	/** The application's trigger: one audit row per written row, in the writing transaction. */
	public static final class AuditTrigger implements Trigger {

		private String op;

		@Override
		public void init(Connection conn, String schemaName, String triggerName, String tableName, boolean before,
				int type) {
			this.op = switch (type) {
				case Trigger.INSERT -> "INSERT";
				case Trigger.UPDATE -> "UPDATE";
				default -> "DELETE";
			};
		}

		@Override
		public void fire(Connection conn, Object[] oldRow, Object[] newRow) throws SQLException {
			Object[] row = (newRow != null) ? newRow : oldRow;
			try (PreparedStatement ps = conn
				.prepareStatement("INSERT INTO item_audit (tenant_id, item_id, op) VALUES (?, ?, ?)")) {
				ps.setObject(1, row[0]);
				ps.setObject(2, row[1]);
				ps.setString(3, this.op);
				ps.executeUpdate();
			}
		}

	}

	@BeforeEach
	void start() throws SQLException {
		DataSource directory = this.databases.pool("directory", 4);
		this.shard1 = this.databases.pool("shard-1", 8);
		this.shard2 = this.databases.pool("shard-2", 8);
		ShardTenancyMigrations.migrateDirectory(directory);
		for (DataSource shard : List.of(this.shard1, this.shard2)) {
			ShardTenancyMigrations.migrateShard(shard, shard == this.shard1 ? "shard-1" : "shard-2", List.of());
			try (Connection c = shard.getConnection(); Statement s = c.createStatement()) {
				s.execute("CREATE TABLE item (tenant_id VARCHAR(64) NOT NULL, id BIGINT NOT NULL, qty INT NOT NULL, "
						+ "PRIMARY KEY (tenant_id, id))");
				s.execute("CREATE TABLE item_audit (tenant_id VARCHAR(64) NOT NULL, id UUID DEFAULT RANDOM_UUID() "
						+ "NOT NULL, item_id BIGINT NOT NULL, op VARCHAR(8) NOT NULL, PRIMARY KEY (tenant_id, id))");
				for (String op : List.of("INSERT", "UPDATE", "DELETE")) {
					s.execute("CREATE TRIGGER item_audit_" + op.toLowerCase() + " AFTER " + op + " ON item FOR EACH "
							+ "ROW CALL '" + AuditTrigger.class.getName() + "'");
				}
			}
		}
		this.tenancy = ShardTenancy.builder()
			.directory(directory)
			.shard("shard-1", this.shard1)
			.shard("shard-2", this.shard2)
			.tenantTables(List.of(new TenantTable("item", "tenant_id"), new TenantTable("item_audit", "tenant_id")))
			.actor("app-trigger@test")
			.build();
		this.tenancy.start();
		this.tenancy.admin().create(TENANT, "shard-1");
	}

	@AfterEach
	void stop() {
		if (this.tenancy != null) {
			this.tenancy.close();
		}
		this.databases.close();
	}

	@Test
	@DisplayName("refused before the move starts, naming the table, each trigger and its class; nothing marked, "
			+ "nothing copied, the audit rows as the application wrote them")
	void refusedBeforeTheMoveStarts() throws Exception {
		AuditedItems writers = new AuditedItems(this.tenancy);
		writers.insert(TENANT, 1, 30);
		writers.start(TENANT, 2, 1, 30);
		DirectoryEntry before = this.tenancy.admin().find(TENANT).orElseThrow();
		try {
			writers.awaitWrites(50);
			assertThatThrownBy(() -> this.tenancy.mover().moveAndWait(TENANT, "shard-2", MoveSettings.defaults()))
				.isInstanceOfSatisfying(MoveRefusedException.class, ex -> {
					assertThat(ex.reasons()).hasSize(3).allSatisfy(reason -> assertThat(reason)
						.contains("table item, trigger ITEM_AUDIT_")
						.contains(AuditTrigger.class.getName())
						.contains("H2 has no replica mode"));
					assertThat(ex.getMessage()).contains("nothing marked, nothing copied");
					assertThat(ex.shardId()).isEqualTo("shard-1");
				});
		}
		finally {
			writers.stop();
		}
		DirectoryEntry after = this.tenancy.admin().find(TENANT).orElseThrow();
		assertThat(after.state()).isEqualTo(TenantState.ACTIVE);
		assertThat(after.shardId()).isEqualTo("shard-1");
		assertThat(after.version()).as("nothing marked").isEqualTo(before.version());
		assertThat(this.tenancy.mover().findActive(TENANT)).isEmpty();
		assertThat(AuditedItems.rows(this.shard2, TENANT)).as("rows on the target").isZero();
		assertThat(AuditedItems.audit(this.shard1, TENANT)).isEqualTo(writers.expectedAudit(TENANT));
		try (Connection c = this.shard1.getConnection(); Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM shard_capture WHERE tenant_id = '" + TENANT + "'")) {
			rs.next();
			assertThat(rs.getLong(1)).as("change capture of the tenant").isZero();
		}
	}

	@Test
	@DisplayName("without the application's triggers the same tables move: DONE")
	void movesOnceTheTriggersAreGone() throws Exception {
		new AuditedItems(this.tenancy).insert(TENANT, 1, 30);
		for (DataSource shard : List.of(this.shard1, this.shard2)) {
			try (Connection c = shard.getConnection(); Statement s = c.createStatement()) {
				for (String op : List.of("insert", "update", "delete")) {
					s.execute("DROP TRIGGER item_audit_" + op);
				}
			}
		}

		assertThat(this.tenancy.mover().moveAndWait(TENANT, "shard-2", MoveSettings.defaults()).step())
			.isEqualTo(MoveStep.DONE);
		assertThat(AuditedItems.audit(this.shard2, TENANT).values().stream().mapToInt(Integer::intValue).sum())
			.isEqualTo(30);
	}

}
