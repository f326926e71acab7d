package io.github.shardtenancy.retry;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.shardtenancy.RetriesExhaustedException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.UnsafeToRerunException;
import io.github.shardtenancy.internal.lifecycle.DirectoryAdmin;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.internal.hibernate.TenantRoutingDataSource;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import io.github.shardtenancy.testing.Note;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The framework-free retry with plain Hibernate on H2: two shards with the fence, a router that keeps a route the
 * directory has moved on from, and the retry around {@code SessionFactory.fromTransaction}.
 */
@DisplayName("ShardTenancyRetry with plain Hibernate")
class ShardTenancyRetryTest {

	private static final RetrySettings FAST = RetrySettings.defaults()
		.withBackoff(Duration.ofMillis(1), 2.0, Duration.ofMillis(5))
		.withJitter(Duration.ZERO);

	private static ShardTenancyFixture fixture;

	private static SessionFactory sessionFactory;

	private static Router router;

	private static DirectoryAdmin admin;

	private static final Recorder first = new Recorder("first");

	private static final Recorder second = new Recorder("second");

	@BeforeAll
	static void setUp() {
		fixture = ShardTenancyFixture.create("core-retry", 2);
		sessionFactory = fixture.sessionFactory();
		router = fixture.router();
		admin = fixture.admin(router);
		router.addObserver(first);
		router.addObserver(second);
	}

	@AfterAll
	static void tearDown() {
		fixture.close();
	}

	private static ShardTenancyRetry retry(RetrySettings settings) {
		return new ShardTenancyRetry(router::invalidate, settings, router.observer());
	}

	private static Object writeNote(String body) {
		return sessionFactory.fromTransaction((session) -> {
			Note note = new Note(body);
			session.persist(note);
			session.flush();
			return note.getId();
		});
	}

	@Test
	@DisplayName("a transaction rejected because another instance moved the tenant is retried on the new shard and commits exactly once; both observers are told")
	void staleRouteIsRetriedAndCommitsOnce() throws Exception {
		String t = "retry-moved";
		admin.create(t, "shard-1");
		TenantContext.callAs(t, () -> writeNote("before the move"));
		assertThat(router.cached(t)).get().extracting(DirectoryEntry::shardId).isEqualTo("shard-1");
		Router otherInstance = fixture.newRouter(RouterSettings.defaults());
		fixture.admin(otherInstance).move(t, "shard-2");
		first.events.clear();
		second.events.clear();
		AtomicInteger attempts = new AtomicInteger();

		Object id = TenantContext.callAs(t, () -> retry(FAST).call(() -> {
			attempts.incrementAndGet();
			return writeNote("after the move");
		}));

		assertThat(id).isNotNull();
		assertThat(attempts).hasValue(2);
		assertThat(fixture.rows("shard-2", "note", t)).isEqualTo(2);
		assertThat(fixture.rows("shard-1", "note", t)).isZero();
		assertThat(router.cached(t)).get().extracting(DirectoryEntry::shardId).isEqualTo("shard-2");
		assertThat(first.events).containsExactly("first rejected shard-1 MOVED", "first retried");
		assertThat(second.events).containsExactly("second rejected shard-1 MOVED", "second retried");
	}

	@Test
	@DisplayName("a tenant rejected on every attempt ends in RetriesExhaustedException after max-attempts attempts, naming tenant and shard")
	void budgetRunsOut() {
		String t = "retry-exhausted";
		DirectoryEntry entry = admin.create(t, "shard-1");
		// The fence wants a directory version the directory never reaches: every attempt is STALE.
		ShardFence.set(fixture.pool("shard-1"), "shard-1", t, FenceState.OWNED, entry.version() + 1_000);
		second.events.clear();
		AtomicInteger attempts = new AtomicInteger();

		assertThatThrownBy(() -> TenantContext.callAs(t, () -> retry(FAST.withMaxAttempts(3)).call(() -> {
			attempts.incrementAndGet();
			return writeNote("never");
		}))).isInstanceOfSatisfying(RetriesExhaustedException.class, (ex) -> {
			assertThat(ex.attempts()).isEqualTo(3);
			assertThat(ex.tenantId()).isEqualTo(t);
			assertThat(ex.shardId()).isEqualTo("shard-1");
			assertThat(ex.getCause()).isInstanceOf(SQLException.class);
			assertThat(FenceRejection.find(ex.getCause())).get().extracting(FenceRejection::reason).isEqualTo("STALE");
		});
		assertThat(attempts).hasValue(3);
		assertThat(fixture.rows("shard-1", "note", t)).isZero();
		assertThat(second.events).containsExactly("second rejected shard-1 STALE", "second retried",
				"second rejected shard-1 STALE", "second retried", "second rejected shard-1 STALE",
				"second exhausted");
	}

	@Test
	@DisplayName("a call nested in a retried call runs its work once per outer attempt: only the outermost retries")
	void nestedCallRunsOnce() {
		String t = "retry-nested";
		DirectoryEntry entry = admin.create(t, "shard-1");
		ShardFence.set(fixture.pool("shard-1"), "shard-1", t, FenceState.OWNED, entry.version() + 1_000);
		ShardTenancyRetry retry = retry(FAST.withMaxAttempts(2));
		AtomicInteger outer = new AtomicInteger();
		AtomicInteger inner = new AtomicInteger();

		assertThatThrownBy(() -> TenantContext.callAs(t, () -> retry.call(() -> {
			outer.incrementAndGet();
			assertThat(ShardTenancyRetry.isNested()).isTrue();
			return retry.call(() -> {
				inner.incrementAndGet();
				return writeNote("nested");
			});
		}))).isInstanceOf(RetriesExhaustedException.class);

		assertThat(outer).hasValue(2);
		assertThat(inner).hasValue(2);
		assertThat(ShardTenancyRetry.isNested()).isFalse();
	}

	@Test
	@DisplayName("a failure that is not a rejection is thrown unchanged after one attempt, and nothing is committed")
	void applicationFailureIsNotRetried() {
		String t = "retry-app-failure";
		admin.create(t, "shard-1");
		AtomicInteger attempts = new AtomicInteger();
		IllegalStateException failure = new IllegalStateException("the application fails");

		assertThatThrownBy(() -> TenantContext.callAs(t, () -> retry(FAST).call(() -> {
			attempts.incrementAndGet();
			return sessionFactory.fromTransaction((session) -> {
				session.persist(new Note("rolled back"));
				session.flush();
				throw failure;
			});
		}))).isSameAs(failure);

		assertThat(attempts).hasValue(1);
		assertThat(fixture.rows("shard-1", "note", t)).isZero();
	}

	@Test
	@DisplayName("an attempt rejected after an auto-commit write on the tenant-routing DataSource committed is not run again: UnsafeToRerunException; safeToRerun() runs it again")
	void committedWorkIsNotRepeated() throws Exception {
		String t = "retry-committed";
		DirectoryEntry entry = admin.create(t, "shard-1");
		TenantRoutingDataSource routed = new TenantRoutingDataSource(fixture.provider());
		AtomicInteger attempts = new AtomicInteger();
		Callable<Object> work = () -> {
			if (attempts.incrementAndGet() == 1) {
				try (Connection c = routed.getConnection()) {
					ShardTenancyFixture.insertNote(c, t, "auto-commit write");
				}
				// Meanwhile the fence moves on: the following transaction is rejected.
				ShardFence.set(fixture.pool("shard-1"), "shard-1", t, FenceState.OWNED, entry.version() + 1);
			}
			else {
				ShardFence.set(fixture.pool("shard-1"), "shard-1", t, FenceState.OWNED, entry.version());
			}
			return writeNote("transaction");
		};

		assertThatThrownBy(() -> TenantContext.callAs(t, () -> retry(FAST).call(work)))
			.isInstanceOfSatisfying(UnsafeToRerunException.class, (ex) -> {
				assertThat(ex.attempts()).isEqualTo(1);
				assertThat(ex.tenantId()).isEqualTo(t);
				assertThat(ex.committedWork()).singleElement().asString().contains("INSERT INTO note");
				assertThat(FenceRejection.find(ex)).get().extracting(FenceRejection::reason).isEqualTo("STALE");
			});
		assertThat(attempts).hasValue(1);
		assertThat(fixture.rows("shard-1", "note", t)).isEqualTo(1);

		ShardFence.set(fixture.pool("shard-1"), "shard-1", t, FenceState.OWNED, entry.version());
		attempts.set(0);
		TenantContext.callAs(t, () -> retry(FAST).safeToRerun().call(work));
		assertThat(attempts).hasValue(2);
		assertThat(fixture.rows("shard-1", "note", t)).isEqualTo(3);
	}

	/** Records the events of the retry it is told about. */
	private static final class Recorder implements ShardTenancyObserver {

		final List<String> events = new CopyOnWriteArrayList<>();

		private final String name;

		Recorder(String name) {
			this.name = name;
		}

		@Override
		public void fenceRejected(String shardId, String reason) {
			this.events.add(this.name + " rejected " + shardId + " " + reason);
		}

		@Override
		public void retried() {
			this.events.add(this.name + " retried");
		}

		@Override
		public void retriesExhausted() {
			this.events.add(this.name + " exhausted");
		}

	}

}
