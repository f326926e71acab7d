package io.github.shardtenancy.retry;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.RerunMismatchException;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.retry.RetrySettings.RerunCheck;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import io.github.shardtenancy.testing.ids.Tickets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * What a failed attempt undoes ({@link RetryAttempts#onRollback}, {@link ShardTenancy#assignId},
 * {@link ShardTenancy#assignIntId}) and the check of re-runs ({@link RetrySettings#rerunCheck()}), without Spring: the
 * framework-free {@link ShardTenancyRetry} around plain JDBC on the tenancy's tenant-routing DataSource (auto-commit,
 * each statement fenced), on fenced H2 shards. The first attempt is rejected for real: the tenant's fence is FROZEN
 * when the call starts and set back to OWNED by the second attempt before its first statement.
 */
@DisplayName("RetryAttempts.onRollback and assignId: what a failed attempt undoes, on H2")
class RetryAttemptsOnRollbackTest {

	private static final RetrySettings FAST = RetrySettings.defaults()
		.withBackoff(Duration.ofMillis(1), 2.0, Duration.ofMillis(5))
		.withJitter(Duration.ZERO);

	private static final String NAME = "on-rollback-" + UUID.randomUUID().toString().substring(0, 8);

	private static ShardTenancy tenancy;

	private static DataSource routed;

	private static final List<String> mismatches = new CopyOnWriteArrayList<>();

	private String tenant;

	private DirectoryEntry entry;

	private static HikariConfig pool(String database) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:" + NAME + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
		config.setMaximumPoolSize(4);
		return config;
	}

	@BeforeAll
	static void start() {
		tenancy = Tickets.instance("on-rollback@test", RetryAttemptsOnRollbackTest::pool);
		ShardTenancyMigrations.migrateDirectory(tenancy.directoryDataSource());
		for (String shardId : tenancy.topology().shardIds()) {
			ShardTenancyMigrations.migrateShard(tenancy.topology().dataSource(shardId), shardId,
					List.of(Tickets.CHANGELOG));
		}
		tenancy.start();
		routed = tenancy.dataSource();
		tenancy.addObserver(new ShardTenancyObserver() {
			@Override
			public void rerunMismatch(String tenantId, String table) {
				mismatches.add(tenantId + "/" + table);
			}
		});
	}

	@AfterAll
	static void stop() {
		tenancy.close();
	}

	@BeforeEach
	void frozen() {
		this.tenant = "undo-" + UUID.randomUUID().toString().substring(0, 8);
		this.entry = tenancy.admin().create(this.tenant, "shard-1");
		fence(FenceState.FROZEN);
		mismatches.clear();
	}

	private void fence(FenceState state) {
		ShardFence.set(tenancy.topology().dataSource("shard-1"), "shard-1", this.tenant, state, this.entry.version());
	}

	private static ShardTenancyRetry retry(RetrySettings settings) {
		return new ShardTenancyRetry(tenancy.router()::invalidate, settings, tenancy.observer());
	}

	/** The body's first lines: the second attempt finds the fence OWNED again. */
	private void thawOnRetry(int attempt) {
		if (attempt == 2) {
			fence(FenceState.OWNED);
		}
	}

	private static int update(String sql, Object... parameters) {
		try (Connection c = routed.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
			for (int i = 0; i < parameters.length; i++) {
				ps.setObject(i + 1, parameters[i]);
			}
			return ps.executeUpdate();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private void insertTicket(long id, String body) {
		update("INSERT INTO ticket (id, tenant_id, body) VALUES (?, ?, ?)", id, this.tenant, body);
	}

	/** @return the ids of the tenant's rows of the table, read on shard-1's own pool */
	private List<Long> ticketIds(String table) {
		try (Connection c = tenancy.topology().dataSource("shard-1").getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT id FROM " + table + " WHERE tenant_id = ? ORDER BY id")) {
			ps.setString(1, this.tenant);
			List<Long> ids = new ArrayList<>();
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					ids.add(rs.getLong(1));
				}
			}
			return ids;
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private long rows(String table) {
		return ShardTenancyFixture.queryLong(tenancy.topology().dataSource("shard-1"),
				"SELECT count(*) FROM " + table + " WHERE tenant_id = ?", this.tenant);
	}

	@Test
	@DisplayName("the failed attempt's actions run once, last registered first, before the next attempt; the successful attempt's are dropped")
	void orderOnceAndDroppedOnSuccess() throws Exception {
		List<String> undone = new CopyOnWriteArrayList<>();
		List<String> seenAtStart = new ArrayList<>();
		AtomicInteger attempts = new AtomicInteger();

		TenantContext.callAs(this.tenant, () -> retry(FAST).call(() -> {
			int n = attempts.incrementAndGet();
			thawOnRetry(n);
			seenAtStart.add(n + " " + undone);
			assertThat(RetryAttempts.onRollback(() -> undone.add(n + ":first"))).isTrue();
			RetryAttempts.onRollback(() -> undone.add(n + ":second"));
			RetryAttempts.onRollback(() -> undone.add(n + ":third"));
			insertTicket(tenancy.nextId(), "attempt " + n);
			return null;
		}));

		assertThat(attempts).hasValue(2);
		assertThat(seenAtStart).containsExactly("1 []", "2 [1:third, 1:second, 1:first]");
		assertThat(undone).containsExactly("1:third", "1:second", "1:first");
		assertThat(rows("ticket")).isEqualTo(1);
	}

	@Test
	@DisplayName("a failing action does not stop the others nor the retry; on a failure that is not retried it is attached as suppressed, and the undo is done before the caller sees the failure")
	void failingActionIsSuppressed() throws Exception {
		List<String> undone = new CopyOnWriteArrayList<>();
		AtomicInteger attempts = new AtomicInteger();
		IllegalStateException undoFailure = new IllegalStateException("the undo fails");

		// retried: the rejected attempt's failing action neither stops the other action nor the retry
		TenantContext.callAs(this.tenant, () -> retry(FAST).call(() -> {
			int n = attempts.incrementAndGet();
			thawOnRetry(n);
			RetryAttempts.onRollback(() -> undone.add(n + ":registered first"));
			RetryAttempts.onRollback(() -> {
				throw undoFailure;
			});
			insertTicket(tenancy.nextId(), "attempt " + n);
			return null;
		}));
		assertThat(attempts).hasValue(2);
		assertThat(undone).containsExactly("1:registered first");

		// not retried: the caller gets the body's own failure, the undo already done, the action's failure suppressed
		undone.clear();
		IllegalStateException bodyFailure = new IllegalStateException("the body fails");
		Throwable thrown = catchThrowable(() -> TenantContext.callAs(this.tenant, () -> retry(FAST).call(() -> {
			RetryAttempts.onRollback(() -> undone.add("registered first"));
			RetryAttempts.onRollback(() -> {
				throw undoFailure;
			});
			throw bodyFailure;
		})));
		assertThat(thrown).isSameAs(bodyFailure);
		assertThat(thrown.getSuppressed()).containsExactly(undoFailure);
		assertThat(undone).containsExactly("registered first");
	}

	@Test
	@DisplayName("outside a retried unit of work onRollback registers nothing and assignId registers no reset")
	void outsideARetry() throws Exception {
		AtomicReference<Long> id = new AtomicReference<>();
		assertThat(RetryAttempts.onRollback(() -> id.set(-1L))).isFalse();

		long assigned = TenantContext.callAs(this.tenant, () -> {
			long given = tenancy.assignId(id::set);
			assertThat(catchThrowable(() -> insertTicket(given, "rejected, not retried")))
				.satisfies((ex) -> assertThat(FenceRejection.find(ex)).isPresent());
			return given;
		});

		assertThat(id.get()).isEqualTo(assigned);
		assertThat(rows("ticket")).isZero();
	}

	@Test
	@DisplayName("assignId: the id given in the rejected attempt is reset to null, the re-run inserts with a new id: one row")
	void assignIdIsReset() throws Exception {
		AtomicReference<Long> id = new AtomicReference<>();
		List<String> seenAtStart = new ArrayList<>();
		List<Long> given = new ArrayList<>();
		AtomicInteger attempts = new AtomicInteger();

		TenantContext.callAs(this.tenant, () -> retry(FAST).call(() -> {
			int n = attempts.incrementAndGet();
			thawOnRetry(n);
			seenAtStart.add(String.valueOf(id.get()));
			if (id.get() == null) {
				long assigned = tenancy.assignId(id::set);
				assertThat(id.get()).isEqualTo(assigned);
				given.add(assigned);
				insertTicket(id.get(), "assigned");
			}
			else {
				update("UPDATE ticket SET body = ? WHERE id = ?", "assigned", id.get());
			}
			return null;
		}));

		assertThat(seenAtStart).containsExactly("null", "null");
		assertThat(given).hasSize(2).doesNotHaveDuplicates().allSatisfy((v) -> assertThat(v).isPositive());
		assertThat(id.get()).isEqualTo(given.get(1));
		assertThat(ticketIds("ticket")).containsExactly(id.get());
	}

	@Test
	@DisplayName("assignIntId: the same with an Integer id of the table's counter")
	void assignIntIdIsReset() throws Exception {
		AtomicReference<Integer> id = new AtomicReference<>();
		List<String> seenAtStart = new ArrayList<>();
		AtomicInteger attempts = new AtomicInteger();

		TenantContext.callAs(this.tenant, () -> retry(FAST).call(() -> {
			int n = attempts.incrementAndGet();
			thawOnRetry(n);
			seenAtStart.add(String.valueOf(id.get()));
			if (id.get() == null) {
				assertThat(tenancy.assignIntId("int_ticket", id::set)).isEqualTo(id.get()).isPositive();
				update("INSERT INTO int_ticket (id, tenant_id, body) VALUES (?, ?, ?)", id.get(), this.tenant, "int");
			}
			else {
				update("UPDATE int_ticket SET body = ? WHERE id = ?", "int", id.get());
			}
			return null;
		}));

		assertThat(seenAtStart).containsExactly("null", "null");
		assertThat(ticketIds("int_ticket")).containsExactly(id.get().longValue());
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(RerunCheck.class)
	@DisplayName("an id set before the rejected INSERT and kept: FAIL throws RerunMismatchException, WARN and OFF let the re-run return having written nothing")
	void idKeptAcrossAttempts(RerunCheck check) {
		AtomicReference<Long> id = new AtomicReference<>();
		AtomicInteger attempts = new AtomicInteger();

		Throwable thrown = catchThrowable(() -> TenantContext.callAs(this.tenant,
				() -> retry(FAST.withRerunCheck(check)).call(() -> {
					thawOnRetry(attempts.incrementAndGet());
					if (id.get() == null) {
						id.set(tenancy.nextId());
						insertTicket(id.get(), "kept");
					}
					else {
						update("UPDATE ticket SET body = ? WHERE id = ?", "kept", id.get());
					}
					return null;
				})));

		assertThat(attempts).hasValue(2);
		assertThat(rows("ticket")).isZero();
		if (check == RerunCheck.FAIL) {
			assertThat(thrown).as("the outcome (rows: %d)", rows("ticket"))
				.isInstanceOfSatisfying(RerunMismatchException.class, (ex) -> {
					assertThat(ex.table()).isEqualTo("ticket");
					assertThat(ex.tenantId()).isEqualTo(this.tenant);
				});
		}
		else {
			assertThat(thrown).isNull();
		}
		assertThat(mismatches).isEqualTo(check == RerunCheck.OFF ? List.of() : List.of(this.tenant + "/ticket"));
	}

	@Test
	@DisplayName("an upsert (UPDATE of no row, then INSERT) rejected and run again: no mismatch, one row")
	void upsertIsNotAMismatch() throws Exception {
		AtomicInteger attempts = new AtomicInteger();
		long id = tenancy.nextId();

		TenantContext.callAs(this.tenant, () -> retry(FAST).call(() -> {
			thawOnRetry(attempts.incrementAndGet());
			if (update("UPDATE ticket SET body = ? WHERE id = ?", "upserted", id) == 0) {
				insertTicket(id, "upserted");
			}
			return null;
		}));

		assertThat(attempts).hasValue(2);
		assertThat(ticketIds("ticket")).containsExactly(id);
		assertThat(mismatches).isEmpty();
	}


	@Test
	@DisplayName("a body that builds its object anew inserts it again in the re-run; its later UPDATE that matches no row is its own: no mismatch, one row")
	void rebuiltObjectThenEmptyUpdateIsNotAMismatch() throws Exception {
		AtomicInteger attempts = new AtomicInteger();
		List<Integer> updated = new ArrayList<>();

		TenantContext.callAs(this.tenant, () -> retry(FAST).call(() -> {
			thawOnRetry(attempts.incrementAndGet());
			insertTicket(tenancy.nextId(), "fresh");
			updated.add(update("UPDATE ticket SET body = ? WHERE body = ?", "archived", "expired"));
			return null;
		}));

		assertThat(attempts).hasValue(2);
		assertThat(updated).containsExactly(0);
		assertThat(rows("ticket")).isEqualTo(1);
		assertThat(mismatches).isEmpty();
	}

	@Test
	@DisplayName("a re-run that inserts a new child row but updates the kept parent id of the same table that matches no row: still a mismatch")
	void fewerInsertsThanTheFailedAttemptIsAMismatch() {
		AtomicReference<Long> parent = new AtomicReference<>();
		AtomicInteger attempts = new AtomicInteger();

		Throwable thrown = catchThrowable(() -> TenantContext.callAs(this.tenant, () -> retry(FAST).call(() -> {
			thawOnRetry(attempts.incrementAndGet());
			if (parent.get() == null) {
				parent.set(tenancy.nextId());
				insertTicket(parent.get(), "parent");
			}
			else {
				update("UPDATE ticket SET body = ? WHERE id = ?", "parent", parent.get());
			}
			insertTicket(tenancy.nextId(), "child");
			return null;
		})));

		assertThat(attempts).hasValue(2);
		assertThat(thrown).isInstanceOf(RerunMismatchException.class);
		assertThat(rows("ticket")).isZero();
	}

}
