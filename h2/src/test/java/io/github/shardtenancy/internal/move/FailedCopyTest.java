package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.testing.TenantWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * An online move on H2 whose bulk copy (multi-row {@code INSERT}s) fails midway, after batches were committed on the
 * target, on a row of the tenant that a {@code CHECK} constraint present only on the target refuses (issue 27, point
 * 5): the move fails with a {@link MoveException} naming the copy, the table and H2's own message; it is aborted, the
 * tenant is ACTIVE on its source with capture off and no row of it is on the target; each pool discarded the
 * connection the copy used on its shard (one of the sessions it held before is gone, and every connection answers);
 * once the constraint is dropped the tenant moves.
 */
@DisplayName("Online move on H2 whose copy fails midway: aborted, nothing on the target, the copy's connections "
		+ "discarded")
class FailedCopyTest {

	private static final String TENANT = "acme";

	private static final int POOL_SIZE = 4;

	private MoveFixture fixture;

	private TenantWriter writer;

	@BeforeEach
	void setUp() throws Exception {
		this.fixture = new MoveFixture(2, POOL_SIZE);
		this.fixture.admin().create(TENANT, "shard-1");
		this.writer = MoveFixture.writer(this.fixture, TENANT, new AtomicBoolean());
		this.writer.write(200);
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	@Test
	@DisplayName("a row the target's CHECK constraint refuses: MoveException naming the copy, the table and H2's "
			+ "message; aborted; the copy's connections discarded; moves once the constraint is dropped")
	void checkConstraintOnlyOnTheTarget() throws Exception {
		long last = this.fixture.orders("shard-1", TENANT).keySet().stream().mapToLong(Long::longValue).max()
			.orElseThrow();
		execute("shard-2", "ALTER TABLE customer_order ADD CONSTRAINT copy_refused CHECK (id <> " + last + ")");
		Set<Integer> sourceSessions = borrowEveryConnection("shard-1");
		Set<Integer> targetSessions = borrowEveryConnection("shard-2");
		MoveSettings settings = MoveSettings.defaults().withBatchSize(10);

		assertThatThrownBy(() -> this.fixture.mover().moveAndWait(TENANT, "shard-2", settings))
			.isInstanceOf(MoveException.class)
			.hasMessageContaining("failed in its copy step")
			.hasMessageContaining("copy of table customer_order")
			.hasMessageContaining("COPY_REFUSED")
			.hasMessageContaining("aborted")
			.hasMessageNotContaining("null");

		DirectoryEntry entry = this.fixture.directory().find(TENANT).orElseThrow();
		assertThat(entry.state()).isEqualTo(TenantState.ACTIVE);
		assertThat(entry.shardId()).isEqualTo("shard-1");
		assertThat(entry.targetShardId()).isNull();
		assertThat(this.fixture.mover().findActive(TENANT)).isEmpty();
		assertThat(this.fixture.rows("shard-2", TENANT)).as("rows of the tenant on the target").isZero();
		assertThat(this.fixture.captured("shard-1", TENANT)).as("change capture of the tenant on the source").isZero();
		assertThat(without(sourceSessions, borrowEveryConnection("shard-1")))
			.as("sessions of the source's pool discarded: the copy's").hasSize(1);
		assertThat(without(targetSessions, borrowEveryConnection("shard-2")))
			.as("sessions of the target's pool discarded: the copy's").hasSize(1);

		execute("shard-2", "ALTER TABLE customer_order DROP CONSTRAINT copy_refused");
		assertThat(this.fixture.mover().moveAndWait(TENANT, "shard-2", settings).step()).isEqualTo(MoveStep.DONE);
		Map<Long, Integer> orders = TenantWriter.committedOrders(List.of(this.writer));
		assertThat(this.fixture.orders("shard-2", TENANT)).isEqualTo(orders);
		assertThat(this.fixture.lines("shard-2", TENANT)).isEqualTo(TenantWriter.committedLines(List.of(this.writer)));
		assertThat(this.fixture.rows("shard-1", TENANT)).isZero();
	}

	private static Set<Integer> without(Set<Integer> before, Set<Integer> after) {
		Set<Integer> gone = new HashSet<>(before);
		gone.removeAll(after);
		return gone;
	}

	/**
	 * Borrows every connection the shard's pool may hold at once, checks that each answers {@code SELECT 1}, and
	 * returns their H2 session ids.
	 */
	private Set<Integer> borrowEveryConnection(String shardId) throws SQLException {
		DataSource pool = this.fixture.topology().dataSource(shardId);
		assertThat(((HikariDataSource) pool).getMaximumPoolSize()).isEqualTo(POOL_SIZE);
		List<Connection> held = new ArrayList<>();
		Set<Integer> sessions = new HashSet<>();
		try {
			for (int i = 0; i < POOL_SIZE; i++) {
				Connection c = pool.getConnection();
				held.add(c);
				try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1, SESSION_ID()")) {
					assertThat(rs.next()).isTrue();
					assertThat(rs.getInt(1)).isEqualTo(1);
					sessions.add(rs.getInt(2));
				}
				catch (SQLException ex) {
					fail("connection " + (i + 1) + " of shard " + shardId + " does not answer SELECT 1: "
							+ ex.getMessage(), ex);
				}
			}
		}
		finally {
			for (Connection c : held) {
				c.close();
			}
		}
		assertThat(sessions).hasSize(POOL_SIZE);
		return sessions;
	}

	private void execute(String shardId, String sql) throws SQLException {
		try (Connection c = this.fixture.topology().dataSource(shardId).getConnection();
				Statement s = c.createStatement()) {
			s.execute(sql);
		}
	}

}
