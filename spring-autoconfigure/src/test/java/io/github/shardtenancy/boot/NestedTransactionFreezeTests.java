package io.github.shardtenancy.boot;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.boot.isoapp.IsoApplication;
import io.github.shardtenancy.boot.isoapp.NestedMemoService;
import io.github.shardtenancy.boot.isoapp.Seen;
import io.github.shardtenancy.h2.H2Fence;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.retry.FenceRejection;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A REQUIRES_NEW transaction of the same tenant, begun inside a transaction that a freeze waits for, in a real
 * application (Boot, Hibernate, Spring Data JPA, two H2 shards): the inner begin is refused FROZEN instead of waiting
 * for the freeze (which waits for the outer transaction), so nothing deadlocks, and the library's retry runs the whole
 * outer transaction again once the freeze is lifted.
 */
@SpringBootTest(classes = IsoApplication.class, properties = {
		"shard-tenancy.web.access.policy=none",
		"shard-tenancy.directory.url=jdbc:h2:mem:nested-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:nested-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:nested-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.liquibase.shard-changelogs=db/iso-shard.xml", "shard-tenancy.sync.interval=1h",
		"shard-tenancy.retry.max-delay=20ms", "shard-tenancy.retry.freeze-wait=120s",
		"shard-tenancy.actor=nested-tests" })
class NestedTransactionFreezeTests {

	/**
	 * The call and the freeze each block while the other runs, so each needs a thread of its own. The default async
	 * pool does not promise one: on JDK 17 with two cores it starts a thread per task, on JDK 25 it is the common pool
	 * even at parallelism 1, where the freeze would queue behind the blocked call.
	 */
	private static final Executor THREAD_PER_TASK = (task) -> new Thread(task).start();

	@Autowired
	private TenantAdmin admin;

	@Autowired
	private ShardTopology topology;

	@Autowired
	private NestedMemoService service;

	@Test
	@DisplayName("a REQUIRES_NEW begin while a freeze waits for the outer transaction is refused FROZEN: no deadlock, the freeze completes, the retry writes each memo once")
	void requiresNewWhileFreezeWaits() throws Exception {
		String tenant = "nested-1";
		DirectoryEntry entry = this.admin.create(tenant, "shard-1");
		DataSource shard = this.topology.dataSource("shard-1");
		this.service.reset();
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

		CompletableFuture<Seen> call = CompletableFuture.supplyAsync(() -> {
			try (TenantContext.Scope scope = TenantContext.bind(tenant)) {
				return this.service.writeThenRequiresNew("nested", beforeInner);
			}
		}, THREAD_PER_TASK);
		assertThat(outerWrote.await(30, TimeUnit.SECONDS)).as("the outer transaction wrote").isTrue();
		CompletableFuture<Void> freeze = CompletableFuture
			.runAsync(() -> ShardFence.set(shard, "shard-1", tenant, FenceState.FROZEN, entry.version()),
					THREAD_PER_TASK);
		await("the freeze waits for the outer transaction").atMost(Duration.ofSeconds(30))
			.until(() -> freeze.isDone() || waitingForFenceLock(shard) > 0);
		assertThat(freeze).as("the freeze waits for the outer transaction").isNotDone();
		freezeWaits.countDown();

		freeze.get(30, TimeUnit.SECONDS);
		assertThat(ShardFence.get(shard, "shard-1", tenant)).get()
			.extracting(ShardFence.Row::state)
			.isEqualTo(FenceState.FROZEN);
		assertThat(memos(shard, tenant, "nested outer")).as("the rejected attempt's outer write was rolled back")
			.isZero();
		ShardFence.set(shard, "shard-1", tenant, FenceState.OWNED, entry.version());

		Seen seen = call.get(30, TimeUnit.SECONDS);
		assertThat(seen.isolation()).isEqualTo("READ COMMITTED");
		// Attempts made while the tenant was FROZEN are rejected before the inner call (at begin or at the outer
		// write, depending on the fence), so only the first attempt's inner begin failed.
		assertThat(this.service.innerFailures()).singleElement()
			.satisfies((ex) -> assertThat(FenceRejection.find(ex)).get()
				.extracting(FenceRejection::reason)
				.isEqualTo("FROZEN"));
		assertThat(this.service.runs()).as("the rejected attempt, then the retries until the freeze was lifted")
			.isGreaterThanOrEqualTo(2);
		assertThat(memos(shard, tenant, "nested outer")).isEqualTo(1);
		assertThat(memos(shard, tenant, "nested inner")).isEqualTo(1);
	}

	private static int waitingForFenceLock(DataSource shard) throws SQLException {
		try (Connection c = shard.getConnection()) {
			return H2Fence.sessionsWaitingForFenceLock(c);
		}
	}

	private static long memos(DataSource shard, String tenant, String title) throws SQLException {
		try (Connection c = shard.getConnection();
				PreparedStatement ps = c
					.prepareStatement("SELECT COUNT(*) FROM iso_memo WHERE tenant_id = ? AND title = ?")) {
			ps.setString(1, tenant);
			ps.setString(2, title);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

}
