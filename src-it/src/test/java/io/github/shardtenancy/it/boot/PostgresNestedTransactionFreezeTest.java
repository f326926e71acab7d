package io.github.shardtenancy.it.boot;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.it.boot.iso.IsoPgApplication;
import io.github.shardtenancy.it.boot.iso.PgNestedMemoService;
import io.github.shardtenancy.it.boot.iso.PgSeen;
import io.github.shardtenancy.it.support.BootProperties;
import io.github.shardtenancy.retry.FenceRejection;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import io.github.shardtenancy.testing.pg.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.mock.web.MockServletContext;
import org.springframework.web.context.support.GenericWebApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A REQUIRES_NEW transaction of the same tenant, begun inside a transaction that a freeze waits for, in a Spring Boot /
 * Spring Data JPA application on PostgreSQL ({@link IsoPgApplication}): the inner begin is refused FROZEN instead of
 * waiting for the freeze (which waits for the outer transaction), so nothing deadlocks, and the library's retry runs
 * the whole outer transaction again once the freeze is lifted.
 */
@DisplayName("PostgreSQL: a nested REQUIRES_NEW transaction while a freeze waits for the outer one")
class PostgresNestedTransactionFreezeTest {

	/**
	 * The call and the freeze each block while the other runs, so each needs a thread of its own. The default async
	 * pool does not promise one: on JDK 17 with two cores it starts a thread per task, on JDK 25 it is the common pool
	 * even at parallelism 1, where the freeze would queue behind the blocked call.
	 */
	private static final Executor THREAD_PER_TASK = (task) -> new Thread(task).start();

	private static final String FREEZER = "pg-nested-freezer";

	static PostgresCluster cluster;

	static ConfigurableApplicationContext app;

	@BeforeAll
	static void start() {
		cluster = PostgresCluster.shared();
		List<String> properties = new ArrayList<>(List.of(
				"shard-tenancy.liquibase.shard-changelogs=db/it-pg/pg-iso.xml", "shard-tenancy.sync.interval=1h",
				"shard-tenancy.sync.listen=false", "shard-tenancy.retry.max-delay=20ms",
				"shard-tenancy.retry.freeze-wait=120s", "shard-tenancy.actor=pg-nested",
				"spring.liquibase.enabled=false", "spring.jmx.enabled=false"));
		properties.addAll(BootProperties.connectingTo(cluster));
		app = new SpringApplicationBuilder(IsoPgApplication.class).web(WebApplicationType.SERVLET)
			.contextFactory(type -> new GenericWebApplicationContext(new MockServletContext()))
			.properties(properties.toArray(String[]::new))
			.run();
	}

	@AfterAll
	static void stop() {
		if (app != null) {
			app.close();
		}
	}

	@Test
	@DisplayName("a REQUIRES_NEW begin while a freeze waits for the outer transaction is refused FROZEN: no deadlock, the freeze completes, the retry writes each memo once")
	void requiresNewWhileFreezeWaits() throws Exception {
		String tenant = PostgresCluster.tenant("pg-nested");
		DirectoryEntry entry = app.getBean(TenantAdmin.class).create(tenant, "shard-1");
		PgNestedMemoService service = app.getBean(PgNestedMemoService.class);
		service.reset();
		PostgresServer server = cluster.shard("shard-1");
		PGSimpleDataSource freezer = new PGSimpleDataSource();
		freezer.setUrl(server.jdbcUrl());
		freezer.setUser(server.user());
		freezer.setPassword(server.password());
		freezer.setApplicationName(FREEZER);
		CountDownLatch outerWrote = new CountDownLatch(1);
		CountDownLatch freezeWaits = new CountDownLatch(1);
		AtomicBoolean first = new AtomicBoolean(true);
		Runnable beforeInner = () -> {
			if (first.getAndSet(false)) {
				outerWrote.countDown();
				try {
					assertThat(freezeWaits.await(30, TimeUnit.SECONDS)).as("the test saw the freeze wait").isTrue();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
			}
		};

		CompletableFuture<PgSeen> call = CompletableFuture.supplyAsync(() -> {
			try (TenantContext.Scope scope = TenantContext.bind(tenant)) {
				return service.writeThenRequiresNew("nested", beforeInner);
			}
		}, THREAD_PER_TASK);
		assertThat(outerWrote.await(30, TimeUnit.SECONDS)).as("the outer transaction wrote").isTrue();
		CompletableFuture<Void> freeze = CompletableFuture
			.runAsync(() -> ShardFence.set(freezer, "shard-1", tenant, FenceState.FROZEN, entry.version()),
					THREAD_PER_TASK);
		await("the freeze waits for the outer transaction").atMost(Duration.ofSeconds(30))
			.until(() -> freeze.isDone() || cluster.waitsForLock(server, FREEZER));
		assertThat(freeze).as("the freeze waits for the outer transaction").isNotDone();
		freezeWaits.countDown();

		freeze.get(30, TimeUnit.SECONDS);
		assertThat(ShardFence.get(freezer, "shard-1", tenant)).get()
			.extracting(ShardFence.Row::state)
			.isEqualTo(FenceState.FROZEN);
		assertThat(memos(freezer, tenant, "nested outer")).as("the rejected attempt's outer write was rolled back")
			.isZero();
		ShardFence.set(freezer, "shard-1", tenant, FenceState.OWNED, entry.version());

		PgSeen seen = call.get(30, TimeUnit.SECONDS);
		assertThat(seen.isolation()).isEqualTo("read committed");
		assertThat(seen.readOnly()).isEqualTo("off");
		// Attempts made while the tenant was FROZEN are rejected before the inner call (at begin or at the outer
		// write, depending on the fence), so only the first attempt's inner begin failed.
		assertThat(service.innerFailures()).singleElement()
			.satisfies((ex) -> assertThat(FenceRejection.find(ex)).get()
				.extracting(FenceRejection::reason)
				.isEqualTo("FROZEN"));
		assertThat(service.runs()).as("the rejected attempt, then the retries until the freeze was lifted")
			.isGreaterThanOrEqualTo(2);
		assertThat(memos(freezer, tenant, "nested outer")).isEqualTo(1);
		assertThat(memos(freezer, tenant, "nested inner")).isEqualTo(1);
	}

	private static long memos(PGSimpleDataSource shard, String tenant, String title) throws SQLException {
		try (Connection c = shard.getConnection();
				PreparedStatement ps = c
					.prepareStatement("SELECT count(*) FROM pg_iso_memo WHERE tenant_id = ? AND title = ?")) {
			ps.setString(1, tenant);
			ps.setString(2, title);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

}
