package io.github.shardtenancy.boot;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import javax.sql.DataSource;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantRouter;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.TenantTaskOptions;
import io.github.shardtenancy.TenantTaskResult;
import io.github.shardtenancy.TenantTaskResult.Status;
import io.github.shardtenancy.TenantTasks;
import io.github.shardtenancy.boot.task.TransactionalTenantTasks;
import io.github.shardtenancy.boot.taskapp.TaskNote;
import io.github.shardtenancy.boot.taskapp.TaskNoteRepository;
import io.github.shardtenancy.boot.taskapp.TaskNoteService;
import io.github.shardtenancy.boot.testapp.RecordingRetryListener;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.retry.FenceRejection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TransactionalTenantTasks} in a Boot application ({@code TaskApplication}) on real databases: the
 * application's repository, {@code @Transactional} service and {@code JdbcTemplate}, called from
 * {@code forEachTenant}, write on each tenant's own shard in one transaction of the application's transaction manager,
 * with the run's completion mark; a fence rejection is retried to one commit; a failing tenant is reported and rolled
 * back while the others complete. The subclasses give the databases (H2, PostgreSQL).
 */
abstract class TransactionalTenantTasksContract {

	private static final AtomicInteger RUNS = new AtomicInteger();

	private ExecutorService worker;

	/** @return the running application */
	protected abstract ConfigurableApplicationContext app();

	/**
	 * @param shardId a shard
	 * @return a pool on that shard that reads every tenant's rows and may change the fence
	 */
	protected abstract DataSource raw(String shardId);

	/**
	 * @param prefix a readable prefix
	 * @return a tenant id no other test (of the JVM) uses
	 */
	protected abstract String tenant(String prefix);

	@BeforeEach
	void startWorker() {
		// One thread: the tests see the binding it is left with after the run.
		this.worker = Executors.newSingleThreadExecutor();
		app().getBean(RecordingRetryListener.class).reset();
	}

	@AfterEach
	void stopWorker() throws InterruptedException {
		this.worker.shutdown();
		assertThat(this.worker.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
	}

	private TransactionalTenantTasks tasks() {
		return app().getBean(TransactionalTenantTasks.class);
	}

	private TenantAdmin admin() {
		return app().getBean(TenantAdmin.class);
	}

	private RecordingRetryListener listener() {
		return app().getBean(RecordingRetryListener.class);
	}

	private static String runName(String what) {
		return "foreach-" + what + "-" + RUNS.incrementAndGet() + "-" + UUID.randomUUID();
	}

	/**
	 * The application's work for one tenant, through its three ways to the database: a repository save (flushed at
	 * the commit), a {@code @Transactional} service joining the transaction, a {@code JdbcTemplate} insert.
	 */
	private Consumer<String> writeThroughEveryPath() {
		TaskNoteRepository notes = app().getBean(TaskNoteRepository.class);
		TaskNoteService service = app().getBean(TaskNoteService.class);
		JdbcTemplate jdbc = app().getBean(JdbcTemplate.class);
		return (tenant) -> {
			notes.save(new TaskNote("repository"));
			service.write("service " + tenant);
			jdbc.update("INSERT INTO pg_note (id, tenant_id, text) VALUES (?, ?, 'jdbc')", UUID.randomUUID(), tenant);
		};
	}

	private long rows(String shardId, String tenant, String text) throws SQLException {
		return count(shardId, "SELECT COUNT(*) FROM pg_note WHERE tenant_id = ? AND text = ?", tenant, text);
	}

	private long marks(String shardId, String run, String tenant) throws SQLException {
		return count(shardId, "SELECT COUNT(*) FROM shard_task_log WHERE tenant_id = ? AND run_name = ?", tenant, run);
	}

	private long count(String shardId, String sql, String first, String second) throws SQLException {
		try (Connection c = raw(shardId).getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
			s.setString(1, first);
			s.setString(2, second);
			try (ResultSet rs = s.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	/** Asserts the tenant's three rows and its mark exactly once on {@code shardId}, none on {@code otherShardId}. */
	private void assertWrittenOnce(String tenant, String run, String shardId, String otherShardId) throws SQLException {
		for (String text : List.of("repository", "service " + tenant, "jdbc")) {
			assertThat(rows(shardId, tenant, text)).as("%s's '%s' on %s", tenant, text, shardId).isEqualTo(1);
			assertThat(rows(otherShardId, tenant, text)).as("%s's '%s' on %s", tenant, text, otherShardId).isZero();
		}
		assertThat(marks(shardId, run, tenant)).as("%s's completion mark on %s", tenant, shardId).isEqualTo(1);
		assertThat(marks(otherShardId, run, tenant)).as("%s's completion mark on %s", tenant, otherShardId).isZero();
	}

	private void assertWrittenNowhere(String tenant, String run, String... shardIds) throws SQLException {
		for (String shardId : shardIds) {
			for (String text : List.of("repository", "service " + tenant, "jdbc")) {
				assertThat(rows(shardId, tenant, text)).as("%s's '%s' on %s", tenant, text, shardId).isZero();
			}
			assertThat(marks(shardId, run, tenant)).as("%s's completion mark on %s", tenant, shardId).isZero();
		}
	}

	@Test
	@DisplayName("a repository save, a @Transactional service and JdbcTemplate land on each tenant's own shard exactly "
			+ "once, in one transaction with the completion mark; the tenant is bound during the work and unbound after")
	void everyPathLandsOnTheTenantsShardOnce() throws Exception {
		List<String> onFirst = List.of(tenant("each-a"), tenant("each-b"));
		List<String> onSecond = List.of(tenant("each-c"), tenant("each-d"));
		onFirst.forEach((tenant) -> admin().create(tenant, "shard-1"));
		onSecond.forEach((tenant) -> admin().create(tenant, "shard-2"));
		List<String> tenants = List.of(onFirst.get(0), onSecond.get(0), onFirst.get(1), onSecond.get(1));
		String run = runName("each");
		Map<String, String> bound = new ConcurrentHashMap<>();
		Map<String, Boolean> inTransaction = new ConcurrentHashMap<>();
		Consumer<String> write = writeThroughEveryPath();

		Map<String, TenantTaskResult<Void>> results = tasks()
			.forEachTenant(TenantTaskOptions.named(run).tenants(tenants).executor(this.worker), (tenant) -> {
				bound.put(tenant, TenantContext.current());
				inTransaction.put(tenant, TransactionSynchronizationManager.isActualTransactionActive());
				write.accept(tenant);
			})
			.await();

		assertThat(results).hasSize(4);
		for (String tenant : tenants) {
			String shardId = onFirst.contains(tenant) ? "shard-1" : "shard-2";
			assertThat(results.get(tenant)).satisfies((result) -> {
				assertThat(result.status()).isEqualTo(Status.DONE);
				assertThat(result.shardId()).isEqualTo(shardId);
				assertThat(result.error()).isNull();
			});
			assertWrittenOnce(tenant, run, shardId, onFirst.contains(tenant) ? "shard-2" : "shard-1");
			assertThat(bound.get(tenant)).as("the tenant bound while its work ran").isEqualTo(tenant);
			assertThat(inTransaction.get(tenant)).as("the work ran in a transaction").isTrue();
			assertThat(app().getBean(TaskNoteService.class).joined("service " + tenant))
				.as("the @Transactional service joined the run's transaction").isTrue();
		}
		assertThat(TenantContext.current()).as("the calling thread").isNull();
		assertThat(this.worker.submit(TenantContext::current).get(30, TimeUnit.SECONDS))
			.as("the run's thread after the run").isNull();
		assertThat(this.worker.submit(TransactionSynchronizationManager::isActualTransactionActive)
			.get(30, TimeUnit.SECONDS)).as("no transaction left on the run's thread").isFalse();
	}

	@Test
	@DisplayName("a fence rejection (the tenant frozen on its shard) rolls the attempt back, is retried, and commits once")
	void fenceRejectionIsRetriedAndCommitsOnce() throws Exception {
		String tenant = tenant("frozen");
		DirectoryEntry entry = admin().create(tenant, "shard-1");
		ShardFence.set(raw("shard-1"), "shard-1", tenant, FenceState.FROZEN, entry.version());
		listener().beforeRetry((n) -> ShardFence.set(raw("shard-1"), "shard-1", tenant, FenceState.OWNED,
				entry.version()));
		String run = runName("frozen");
		AtomicInteger calls = new AtomicInteger();
		Consumer<String> write = writeThroughEveryPath();

		Map<String, TenantTaskResult<Void>> results = tasks()
			.forEachTenant(TenantTaskOptions.named(run).tenants(List.of(tenant)), (t) -> {
				calls.incrementAndGet();
				write.accept(t);
			})
			.await();

		assertThat(results.get(tenant).status()).as("%s", results.get(tenant)).isEqualTo(Status.DONE);
		assertThat(listener().retries()).isEqualTo(1);
		assertThat(FenceRejection.find(listener().failures().get(0))).get()
			.extracting(FenceRejection::reason, FenceRejection::shardId)
			.containsExactly("FROZEN", "shard-1");
		assertThat(calls).as("the work ran again after the rejected attempt").hasValue(2);
		assertWrittenOnce(tenant, run, "shard-1", "shard-2");
	}

	@Test
	@DisplayName("the raw connection form (the TenantTasks bean) runs in the same ShardTenancyRetry bean: its listeners "
			+ "see the rejection, and the row commits once")
	void rawConnectionFormRunsInTheRetryBean() throws Exception {
		String tenant = tenant("raw");
		DirectoryEntry entry = admin().create(tenant, "shard-1");
		ShardFence.set(raw("shard-1"), "shard-1", tenant, FenceState.FROZEN, entry.version());
		listener().beforeRetry((n) -> ShardFence.set(raw("shard-1"), "shard-1", tenant, FenceState.OWNED,
				entry.version()));
		String run = runName("raw");

		Map<String, TenantTaskResult<Integer>> results = app().getBean(TenantTasks.class)
			.start(TenantTaskOptions.named(run).tenants(List.of(tenant)), (t, connection) -> {
				try (PreparedStatement s = connection
					.prepareStatement("INSERT INTO pg_note (id, tenant_id, text) VALUES (?, ?, 'raw')")) {
					s.setObject(1, UUID.randomUUID());
					s.setString(2, t);
					return s.executeUpdate();
				}
			})
			.await();

		assertThat(results.get(tenant).status()).as("%s", results.get(tenant)).isEqualTo(Status.DONE);
		assertThat(listener().retries()).isEqualTo(1);
		assertThat(rows("shard-1", tenant, "raw")).isEqualTo(1);
		assertThat(marks("shard-1", run, tenant)).isEqualTo(1);
	}

	@Test
	@DisplayName("a tenant moved to another shard during the run (by another instance) is rejected on its old shard and "
			+ "committed once on the new one")
	void tenantMovedDuringTheRunCommitsOnceOnItsNewShard() throws Exception {
		String first = tenant("moving-a");
		String moved = tenant("moving-b");
		admin().create(first, "shard-1");
		admin().create(moved, "shard-1");
		ShardTenancy tenancy = app().getBean(ShardTenancy.class);
		TenantRouter router = app().getBean(TenantRouter.class);
		// This instance routes the tenant to shard-1 from its cache from now on.
		TenantContext.callAs(moved, () -> app().getBean(TaskNoteRepository.class).count());
		assertThat(router.cached(moved)).get().extracting(DirectoryEntry::shardId).isEqualTo("shard-1");
		Router otherInstance = new Router(Internals.directory(tenancy), RouterSettings.defaults());
		Mover otherMover = new Mover(Internals.directory(tenancy), otherInstance, Internals.topology(tenancy),
				List.of(new TenantTable("pg_note", "tenant_id")), "other-instance", Runnable::run);
		String run = runName("moving");
		Consumer<String> write = writeThroughEveryPath();

		// One tenant at a time on shard-1: the first tenant's work moves the second before the second's turn.
		Map<String, TenantTaskResult<Void>> results = tasks()
			.forEachTenant(TenantTaskOptions.named(run).tenants(List.of(first, moved)).perShard(1), (tenant) -> {
				if (tenant.equals(first)) {
					otherMover.moveAndWait(moved, "shard-2", MoveSettings.stopTheWorld());
				}
				write.accept(tenant);
			})
			.await();

		assertThat(results.values()).allSatisfy((result) -> assertThat(result.status()).as("%s", result)
			.isEqualTo(Status.DONE));
		assertThat(results.get(moved).shardId()).isEqualTo("shard-2");
		assertThat(listener().failures()).isNotEmpty();
		assertThat(FenceRejection.find(listener().failures().get(0))).get()
			.extracting(FenceRejection::tenantId, FenceRejection::shardId)
			.containsExactly(moved, "shard-1");
		assertWrittenOnce(first, run, "shard-1", "shard-2");
		assertWrittenOnce(moved, run, "shard-2", "shard-1");
	}

	@Test
	@DisplayName("a failing tenant is reported FAILED with its error and nothing of it is committed; the others "
			+ "complete; resuming the run runs only that tenant")
	void failingTenantIsReportedAndTheOthersComplete() throws Exception {
		String a = tenant("fail-a");
		String b = tenant("fail-b");
		String c = tenant("fail-c");
		admin().create(a, "shard-1");
		admin().create(b, "shard-1");
		admin().create(c, "shard-2");
		String run = runName("fail");
		IllegalStateException refusal = new IllegalStateException("day not closable for " + b);
		Consumer<String> write = writeThroughEveryPath();

		Map<String, TenantTaskResult<Void>> results = tasks()
			.forEachTenant(TenantTaskOptions.named(run).tenants(List.of(a, b, c)), (tenant) -> {
				write.accept(tenant);
				if (tenant.equals(b)) {
					throw refusal;
				}
			})
			.await();

		assertThat(results.get(a).status()).isEqualTo(Status.DONE);
		assertThat(results.get(c).status()).isEqualTo(Status.DONE);
		assertThat(results.get(b)).satisfies((result) -> {
			assertThat(result.status()).isEqualTo(Status.FAILED);
			assertThat(result.error()).isSameAs(refusal);
			assertThat(result.shardId()).isEqualTo("shard-1");
		});
		assertThat(listener().retries()).as("a failure of the work is not retried").isZero();
		assertWrittenOnce(a, run, "shard-1", "shard-2");
		assertWrittenOnce(c, run, "shard-2", "shard-1");
		assertWrittenNowhere(b, run, "shard-1", "shard-2");

		Map<String, TenantTaskResult<Void>> resumed = tasks()
			.forEachTenant(TenantTaskOptions.named(run).tenants(List.of(a, b, c)), write)
			.await();

		assertThat(resumed.get(a).status()).isEqualTo(Status.ALREADY_DONE);
		assertThat(resumed.get(c).status()).isEqualTo(Status.ALREADY_DONE);
		assertThat(resumed.get(b).status()).isEqualTo(Status.DONE);
		assertWrittenOnce(a, run, "shard-1", "shard-2");
		assertWrittenOnce(b, run, "shard-1", "shard-2");
		assertWrittenOnce(c, run, "shard-2", "shard-1");
	}

	@Test
	@DisplayName("mapEachTenant carries each tenant's result, read through the repository in the run's transaction")
	void mapEachTenantCarriesTheResults() throws Exception {
		String a = tenant("map-a");
		String b = tenant("map-b");
		admin().create(a, "shard-1");
		admin().create(b, "shard-2");
		TaskNoteRepository notes = app().getBean(TaskNoteRepository.class);
		TenantContext.runAs(a, () -> notes.save(new TaskNote("counted")));

		Map<String, TenantTaskResult<Long>> results = tasks()
			.mapEachTenant(TenantTaskOptions.unnamed().tenants(List.of(a, b)), (tenant) -> notes.countByText("counted"))
			.await();

		assertThat(results.get(a).value()).isEqualTo(1L);
		assertThat(results.get(b).value()).isEqualTo(0L);
	}

}
