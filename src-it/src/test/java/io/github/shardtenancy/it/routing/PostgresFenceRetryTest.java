package io.github.shardtenancy.it.routing;

import io.github.shardtenancy.retry.FenceRejection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.boot.retry.ShardTenancyRetry;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.RouterStats;
import io.github.shardtenancy.internal.hibernate.TenantIdentifierResolver;
import io.github.shardtenancy.it.support.AppInstance;
import io.github.shardtenancy.it.support.PgNote;
import io.github.shardtenancy.it.support.PgNotes;
import io.github.shardtenancy.retry.RetrySettings;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

@DisplayName("PostgreSQL fence: a stale router is rejected by the PL/pgSQL fence and the work retried on the new owner")
class PostgresFenceRetryTest {

	static PostgresCluster cluster;

	AppInstance app;

	AppInstance operator;

	SessionFactory sessions;

	ShardTenancyRetry retry;

	final List<FenceRejection> rejections = new java.util.concurrent.CopyOnWriteArrayList<>();

	@BeforeAll
	static void servers() {
		cluster = PostgresCluster.shared();
	}

	@BeforeEach
	void instances() {
		// The application instance has no watcher and a long sync: its cache goes stale on purpose.
		this.app = AppInstance.plain(cluster, "stale-app", RouterSettings.defaults().withSyncInterval(Duration.ofMinutes(10)), 2);
		this.operator = AppInstance.plain(cluster, "stale-op", RouterSettings.defaults(), 2);
		this.sessions = PgNotes.sessionFactory(this.app);
		this.retry = new ShardTenancyRetry(this.app.router, this.app.router.observer(), RetrySettings.defaults(),
				List.of());
	}

	@AfterEach
	void close() {
		this.sessions.close();
		this.app.close();
		this.operator.close();
	}

	@Test
	@DisplayName("staleRouterIsRejectedAndRetriedOnNewOwner: MOVED on the old shard, the row lands on the new shard only")
	void staleRouterIsRejectedAndRetriedOnNewOwner() throws Exception {
		String tenant = PostgresCluster.tenant("stale");
		this.operator.admin.create(tenant, "shard-1");
		save(tenant, "before the move");
		assertThat(this.app.router.cached(tenant)).get().extracting(DirectoryEntry::shardId).isEqualTo("shard-1");

		MoveResult moved = this.operator.admin.move(tenant, "shard-2");
		assertThat(this.app.router.cached(tenant)).get().extracting(DirectoryEntry::shardId).isEqualTo("shard-1");

		int attempts = save(tenant, "after the move");

		assertThat(attempts).isEqualTo(2);
		assertThat(this.rejections).singleElement().satisfies(r -> {
			assertThat(r.tenantId()).isEqualTo(tenant);
			assertThat(r.shardId()).isEqualTo("shard-1");
			assertThat(r.reason()).isEqualTo("MOVED");
			assertThat(r.requiredVersion()).isEqualTo(moved.flipVersion());
			assertThat(r.sqlException().getSQLState()).isEqualTo("40001");
		});
		assertThat(this.app.router.cached(tenant)).get().extracting(DirectoryEntry::shardId).isEqualTo("shard-2");
		assertThat(PgNotes.countNotes(this.app, "shard-2", tenant)).isEqualTo(2);
		assertThat(PgNotes.countNotes(this.app, "shard-1", tenant)).isZero();
	}

	@Test
	@DisplayName("oneRejectionDropsOnlyTheRejectedTenantsEntry: the other cached tenants stay cached, one directory read")
	void oneRejectionDropsOnlyTheRejectedTenantsEntry() throws Exception {
		String moving = PostgresCluster.tenant("drop-moving");
		List<String> neighbours = List.of(PostgresCluster.tenant("drop-a"), PostgresCluster.tenant("drop-b"),
				PostgresCluster.tenant("drop-c"));
		this.operator.admin.create(moving, "shard-1");
		save(moving, "first");
		for (String n : neighbours) {
			this.operator.admin.create(n, "shard-1");
			save(n, "neighbour");
		}
		this.operator.admin.move(moving, "shard-3");
		RouterStats before = this.app.router.stats();

		assertThat(save(moving, "after the move")).isEqualTo(2);

		RouterStats after = this.app.router.stats();
		assertThat(after.invalidations() - before.invalidations()).isEqualTo(1);
		assertThat(after.directoryReads() - before.directoryReads()).isEqualTo(1);
		assertThat(after.syncs()).isEqualTo(before.syncs());
		for (String n : neighbours) {
			assertThat(this.app.router.cached(n)).as("neighbour %s", n).isPresent();
		}
		assertThat(this.app.router.cached(moving)).get().extracting(DirectoryEntry::shardId).isEqualTo("shard-3");
	}

	/** Saves one note for the tenant through Hibernate, retried by ShardTenancyRetry; returns the attempts made. */
	private int save(String tenant, String text) {
		AtomicInteger attempts = new AtomicInteger();
		TenantContext.runAs(tenant, () -> this.retry.run(() -> {
			attempts.incrementAndGet();
			try {
				this.sessions.inTransaction(session -> session.persist(new PgNote(text)));
			}
			catch (RuntimeException ex) {
				FenceRejection.find(ex).ifPresent(this.rejections::add);
				throw ex;
			}
		}));
		return attempts.get();
	}

}
