package io.github.shardtenancy.boot;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantRouter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.shardtenancy.NoTenantBoundException;
import io.github.shardtenancy.RetriesExhaustedException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.boot.opsapp.AuditJob;
import io.github.shardtenancy.boot.opsapp.AuditService;
import io.github.shardtenancy.boot.opsapp.OpsApplication;
import io.github.shardtenancy.boot.opsapp.OrderService;
import io.github.shardtenancy.boot.task.TenantTaskDecorator;
import io.github.shardtenancy.boot.web.TenantHeaderFilter;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.MoveSettings;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.http.MediaType;
import org.springframework.orm.jpa.support.OpenEntityManagerInViewInterceptor;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * Operations in a real application (Boot, Hibernate, Spring Data JPA, Spring MVC with open session in view on as
 * Boot's default, Actuator, Micrometer, two H2 shards): metrics of a scripted rejection and retry, the tenant across
 * threads, scheduled jobs, open session in view, the endpoint and readiness.
 */
@SpringBootTest(classes = OpsApplication.class, properties = {
		"shard-tenancy.web.access.policy=none",
		"shard-tenancy.directory.url=jdbc:h2:mem:ops-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:ops-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:ops-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.liquibase.shard-changelogs=db/ops-shard.xml", "shard-tenancy.sync.interval=1h",
		"shard-tenancy.retry.max-delay=20ms", "shard-tenancy.move.clean-delay=0s", "shard-tenancy.actor=ops-tests",
		"spring.task.execution.pool.core-size=1", "spring.task.execution.pool.max-size=1",
		"management.defaults.metrics.export.enabled=true", "management.simple.metrics.export.enabled=true",
		"management.endpoints.web.exposure.include=health,shardtenancy",
		"management.endpoint.shardtenancy.access=unrestricted", "management.endpoint.shardtenancy.show-values=always",
		"management.endpoint.health.probes.enabled=true", "management.endpoint.health.show-details=always" })
class OperationsTests {

	private static final AtomicInteger TENANTS = new AtomicInteger();

	@Autowired
	private TenantAdmin admin;

	@Autowired
	private TenantRouter router;

	@Autowired
	private ShardTopology topology;

	@Autowired
	private ShardTenancy tenancy;

	@Autowired
	private AuditService audit;

	@Autowired
	private OrderService orders;

	@Autowired
	private AuditJob job;

	@Autowired
	private MeterRegistry registry;

	@Autowired
	private WebApplicationContext context;

	@Autowired
	@Qualifier("applicationTaskExecutor")
	private AsyncTaskExecutor executor;

	@Autowired
	private TaskScheduler scheduler;

	private static String newTenant(String prefix) {
		return prefix + "-" + TENANTS.incrementAndGet();
	}

	private long rowsOn(String shardId, String tenant, String messagePrefix) throws SQLException {
		try (Connection c = this.topology.dataSource(shardId).getConnection();
				PreparedStatement ps = c.prepareStatement(
						"SELECT COUNT(*) FROM audit_entry WHERE tenant_id = ? AND message LIKE ?")) {
			ps.setString(1, tenant);
			ps.setString(2, messagePrefix + "%");
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	private long rowsAnywhere(String messagePrefix) throws SQLException {
		long total = 0;
		for (String shardId : this.topology.shardIds()) {
			try (Connection c = this.topology.dataSource(shardId).getConnection();
					PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM audit_entry WHERE message LIKE ?")) {
				ps.setString(1, messagePrefix + "%");
				try (ResultSet rs = ps.executeQuery()) {
					rs.next();
					total += rs.getLong(1);
				}
			}
		}
		return total;
	}

	@Nested
	@DisplayName("metrics")
	class Metrics {

		private double count(String name, String... tags) {
			Search search = registry.find(name).tags(tags);
			if (search.counter() != null) {
				return search.counter().count();
			}
			if (search.functionCounter() != null) {
				return search.functionCounter().count();
			}
			if (search.timer() != null) {
				return search.timer().count();
			}
			return 0;
		}

		@Test
		@DisplayName("a stale route rejected once and retried counts exactly one MOVED rejection on the old shard, one retry, one miss and one timed directory read")
		void staleRejectionAndRetryAreCountedExactly() throws Exception {
			String tenant = newTenant("metrics");
			admin.create(tenant, "shard-1");
			TenantContext.runAs(tenant, () -> audit.record("before the move"));
			Router otherInstance = new Router(Internals.directory(tenancy), RouterSettings.defaults());
			new Mover(Internals.directory(tenancy), otherInstance, Internals.topology(tenancy), List.of(new TenantTable("audit_entry", "tenant_id")),
					"other-instance", Runnable::run).moveAndWait(tenant, "shard-2", MoveSettings.stopTheWorld());
			assertThat(router.cached(tenant)).get().extracting(DirectoryEntry::shardId).isEqualTo("shard-1");
			double rejections = count("shardtenancy.fence.rejections", "shard", "shard-1", "reason", "MOVED");
			double retries = count("shardtenancy.retries");
			double exhausted = count("shardtenancy.retries.exhausted");
			double misses = count("shardtenancy.router.lookups", "result", "miss");
			double reads = count("shardtenancy.directory.lookups", "result", "found");

			long seen = TenantContext.callAs(tenant, () -> audit.count());

			assertThat(seen).isEqualTo(1);
			assertThat(count("shardtenancy.fence.rejections", "shard", "shard-1", "reason", "MOVED") - rejections)
				.isEqualTo(1);
			assertThat(count("shardtenancy.retries") - retries).isEqualTo(1);
			assertThat(count("shardtenancy.retries.exhausted") - exhausted).isZero();
			assertThat(count("shardtenancy.router.lookups", "result", "miss") - misses).isEqualTo(1);
			assertThat(count("shardtenancy.directory.lookups", "result", "found") - reads).isEqualTo(1);
			assertThat(registry.get("shardtenancy.router.directory.version").gauge().value())
				.isEqualTo(router.version());
		}

		@Test
		@DisplayName("a rejection that never clears counts five rejections, four retries and one exhaustion")
		void exhaustedRetriesAreCountedExactly() {
			String tenant = newTenant("exhaust");
			DirectoryEntry created = admin.create(tenant, "shard-1");
			ShardFence.set(topology.dataSource("shard-1"), "shard-1", tenant, FenceState.MOVED,
					created.version() + 100);
			double rejections = count("shardtenancy.fence.rejections", "shard", "shard-1", "reason", "MOVED");
			double retries = count("shardtenancy.retries");
			double exhausted = count("shardtenancy.retries.exhausted");

			assertThatThrownBy(() -> TenantContext.callAs(tenant, () -> audit.count()))
				.isInstanceOf(RetriesExhaustedException.class);

			assertThat(count("shardtenancy.fence.rejections", "shard", "shard-1", "reason", "MOVED") - rejections)
				.isEqualTo(5);
			assertThat(count("shardtenancy.retries") - retries).isEqualTo(4);
			assertThat(count("shardtenancy.retries.exhausted") - exhausted).isEqualTo(1);
		}

		@Test
		@DisplayName("a basic move is timed, with its freeze window, tagged by mover and shards")
		void movesAreTimed() {
			String tenant = newTenant("moved");
			admin.create(tenant, "shard-1");
			double moves = count("shardtenancy.moves", "mover", "basic", "source", "shard-1", "target", "shard-2");
			double freezes = count("shardtenancy.moves.freeze", "mover", "basic", "source", "shard-1", "target",
					"shard-2");

			admin.move(tenant, "shard-2");

			assertThat(count("shardtenancy.moves", "mover", "basic", "source", "shard-1", "target", "shard-2") - moves)
				.isEqualTo(1);
			assertThat(count("shardtenancy.moves.freeze", "mover", "basic", "source", "shard-1", "target", "shard-2")
					- freezes).isEqualTo(1);
		}

	}

	@Nested
	@DisplayName("the tenant across threads")
	class AcrossThreads {

		@Test
		@DisplayName("@Async audit writes started after commit for t1 then t2 on a one-thread executor: one row each, on each tenant's own shard")
		void afterCommitAsyncWritesGoToEachTenantsShard() throws Exception {
			String t1 = newTenant("t1");
			String t2 = newTenant("t2");
			admin.create(t1, "shard-1");
			admin.create(t2, "shard-2");

			TenantContext.runAs(t1, () -> orders.place(t1));
			String ranAs1 = orders.afterCommitAudit(t1).get(30, TimeUnit.SECONDS);
			TenantContext.runAs(t2, () -> orders.place(t2));
			String ranAs2 = orders.afterCommitAudit(t2).get(30, TimeUnit.SECONDS);

			assertThat(ranAs1).startsWith(t1 + "@");
			assertThat(ranAs2).startsWith(t2 + "@");
			if (!Boolean.getBoolean("spring.threads.virtual.enabled")) {
				// with virtual threads (-Pvirtual-threads) Boot's executor starts a thread per task: nothing to reuse
				assertThat(ranAs1.substring(t1.length())).as("the same pooled thread ran both")
					.isEqualTo(ranAs2.substring(t2.length()));
			}
			assertThat(rowsOn("shard-1", t1, "placed ")).isEqualTo(1);
			assertThat(rowsOn("shard-2", t2, "placed ")).isEqualTo(1);
			assertThat(rowsOn("shard-2", t1, "placed ")).isZero();
			assertThat(rowsOn("shard-1", t2, "placed ")).isZero();
		}

		@Test
		@DisplayName("an @Async task submitted with no tenant, on the thread that just ran t1's task, fails with NoTenantBoundException and writes nothing")
		void taskWithoutTenantFailsAndWritesNothing() throws Exception {
			String t1 = newTenant("t1");
			admin.create(t1, "shard-1");
			TenantContext.callAs(t1, () -> audit.recordAsync("warm-up " + t1)).get(30, TimeUnit.SECONDS);

			CompletableFuture<String> orphan = audit.recordAsync("orphan " + t1);

			assertThatThrownBy(() -> orphan.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
				.cause()
				.isInstanceOf(NoTenantBoundException.class);
			assertThat(rowsAnywhere("orphan " + t1)).isZero();
			assertThat(rowsOn("shard-1", t1, "warm-up ")).isEqualTo(1);
		}

		@Test
		@DisplayName("CompletableFuture stages and scheduled tasks run with the submitter's tenant (scheduled tasks with none on virtual threads)")
		void completableFuturesAndScheduledTasks() throws Exception {
			String tenant = newTenant("cf");
			String seen = TenantContext.callAs(tenant,
					() -> CompletableFuture.supplyAsync(TenantContext::current, executor).get(30, TimeUnit.SECONDS));
			CompletableFuture<String> scheduled = new CompletableFuture<>();
			TenantContext.runAs(tenant,
					() -> scheduler.schedule(() -> scheduled.complete(TenantContext.current()), Instant.now()));

			assertThat(seen).isEqualTo(tenant);
			if (Boolean.getBoolean("spring.threads.virtual.enabled")) {
				// Boot's virtual-thread scheduler (SimpleAsyncTaskScheduler) decorates when the task fires, on its
				// own thread: the task runs with no tenant (fails closed), as docs/usage.md says
				assertThat(scheduled.get(30, TimeUnit.SECONDS)).isNull();
			}
			else {
				assertThat(scheduled.get(30, TimeUnit.SECONDS)).isEqualTo(tenant);
			}
			assertThat(CompletableFuture.supplyAsync(TenantContext::current, executor).get(30, TimeUnit.SECONDS))
				.as("a task submitted with no tenant runs with none").isNull();
		}

		@Test
		@DisplayName("an executor with the tenant-requiring decorator refuses a submission without a tenant at once")
		void requiringDecoratorRefusesTheSubmission() {
			ThreadPoolTaskExecutor strict = new ThreadPoolTaskExecutor();
			strict.setCorePoolSize(1);
			strict.setTaskDecorator(TenantTaskDecorator.requiringTenant());
			strict.initialize();
			try {
				AtomicReference<String> ran = new AtomicReference<>("not run");
				assertThatThrownBy(() -> strict.execute(() -> ran.set(TenantContext.current())))
					.isInstanceOf(NoTenantBoundException.class)
					.hasMessageContaining("executor that runs tenant work only");
				assertThat(ran).hasValue("not run");
			}
			finally {
				strict.shutdown();
			}
		}

	}

	@Nested
	@DisplayName("jobs without a request")
	class Jobs {

		@Test
		@DisplayName("a scheduled job registered at start-up runs with no tenant and writes as a tenant through runAs")
		void scheduledJobBindsItsTenant() throws Exception {
			String tenant = newTenant("job");
			admin.create(tenant, "shard-2");

			job.enqueue(tenant);
			await("the job ran for " + tenant).atMost(Duration.ofSeconds(30)).until(() -> job.done().contains(tenant));

			assertThat(job.tenantsSeenAtStart()).containsOnly("null");
			assertThat(rowsOn("shard-2", tenant, "job for ")).isEqualTo(1);
			assertThat(rowsOn("shard-1", tenant, "job for ")).isZero();
		}

	}

	@Nested
	@DisplayName("open session in view")
	class OpenSessionInView {

		private MockMvc mvc;

		@BeforeEach
		void mockMvc() {
			this.mvc = MockMvcBuilders.webAppContextSetup(context)
				.addFilters(context.getBean(TenantHeaderFilter.class))
				.build();
		}

		@Test
		@DisplayName("Boot's open-in-view interceptor is active in this application")
		void interceptorIsActive() {
			assertThat(context.getBeanProvider(OpenEntityManagerInViewInterceptor.class).getIfAvailable()).isNotNull();
		}

		@Test
		@DisplayName("read as t1, switch to t2, write: TenantSwitchedException naming both, and no row for t2 on t1's shard")
		void switchingTenantInARequestIsRefused() throws Exception {
			String t1 = newTenant("t1");
			String t2 = newTenant("t2");
			admin.create(t1, "shard-1");
			admin.create(t2, "shard-2");

			MvcResult result = this.mvc.perform(post("/switch-to/" + t2).header("X-Tenant-Id", t1))
				.andExpect(status().isConflict())
				.andExpect(jsonPath("$.error").value("TenantSwitchedException"))
				.andReturn();

			assertThat(result.getResponse().getContentAsString()).contains("opened for tenant '" + t1 + "'")
				.contains("works as tenant '" + t2 + "'")
				.contains("open session in view");
			assertThat(rowsOn("shard-1", t2, "switched")).isZero();
			assertThat(rowsAnywhere("switched from " + t2)).isZero();
		}

		@Test
		@DisplayName("a request without a tenant whose controller binds one: TenantSwitchedException (the session has no tenant), no row written")
		void bindingInTheControllerUnderOpenInViewIsRefused() throws Exception {
			String t2 = newTenant("t2");
			admin.create(t2, "shard-2");

			MvcResult result = this.mvc.perform(post("/write-as/" + t2))
				.andExpect(status().isConflict())
				.andExpect(jsonPath("$.error").value("TenantSwitchedException"))
				.andReturn();

			assertThat(result.getResponse().getContentAsString()).contains("opened with no tenant bound");
			assertThat(rowsAnywhere("written as " + t2)).isZero();
		}

		@Test
		@DisplayName("the same controller with the tenant in the header writes one row on the tenant's shard")
		void sameTenantAsTheRequestWrites() throws Exception {
			String t2 = newTenant("t2");
			admin.create(t2, "shard-2");

			this.mvc.perform(post("/write-as/" + t2).header("X-Tenant-Id", t2)).andExpect(status().isOk());

			assertThat(rowsOn("shard-2", t2, "written as ")).isEqualTo(1);
		}

	}

	@Nested
	@DisplayName("Actuator")
	class Actuator {

		private MockMvc mvc;

		@BeforeEach
		void mockMvc() {
			this.mvc = MockMvcBuilders.webAppContextSetup(context).build();
		}

		@Test
		@DisplayName("the endpoint shows the directory version, the cache and every shard's pool")
		void overview() throws Exception {
			this.mvc.perform(get("/actuator/shardtenancy"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.directoryVersion").value((Object) router.version()))
				.andExpect(jsonPath("$.ready").value(true))
				.andExpect(jsonPath("$.listener").doesNotExist())
				.andExpect(jsonPath("$.cache.entries").isNumber())
				.andExpect(jsonPath("$.shards.shard-1.poolName").value("shard-shard-1"))
				.andExpect(jsonPath("$.shards.shard-2.connections.total").isNumber());
		}

		@Test
		@DisplayName("one tenant's entry and owner; an invalid tenant id is answered with 400")
		void oneTenant() throws Exception {
			String tenant = newTenant("seen");
			admin.create(tenant, "shard-2");

			this.mvc.perform(get("/actuator/shardtenancy/" + tenant))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.owner").value("shard-2"))
				.andExpect(jsonPath("$.directory.state").value("ACTIVE"))
				.andExpect(jsonPath("$.move").doesNotExist());
			this.mvc.perform(get("/actuator/shardtenancy/bad!id")).andExpect(status().isBadRequest());
		}

		@Test
		@DisplayName("the check read answers a move's pre-flight check and changes nothing; an unknown shard is 400, "
				+ "another selector than check is 400")
		void checksAMove() throws Exception {
			String tenant = newTenant("chk");
			admin.create(tenant, "shard-1");
			TenantContext.runAs(tenant, () -> audit.record("to check"));
			long version = admin.find(tenant).orElseThrow().version();

			this.mvc.perform(get("/actuator/shardtenancy/" + tenant + "/check/shard-2"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.tenantId").value(tenant))
				.andExpect(jsonPath("$.sourceShardId").value("shard-1"))
				.andExpect(jsonPath("$.targetShardId").value("shard-2"))
				.andExpect(jsonPath("$.problems").isEmpty())
				.andExpect(jsonPath("$.bytes").value(-1));
			assertThat(admin.find(tenant).orElseThrow().version()).as("nothing marked").isEqualTo(version);
			this.mvc.perform(get("/actuator/shardtenancy/" + tenant + "/check/shard-1"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.problems[0]").value(org.hamcrest.Matchers.containsString("already lives")));
			this.mvc.perform(get("/actuator/shardtenancy/" + tenant + "/check/shard-9"))
				.andExpect(status().isBadRequest());
			this.mvc.perform(get("/actuator/shardtenancy/" + tenant + "/move/shard-2"))
				.andExpect(status().isBadRequest());
		}

		@Test
		@DisplayName("the create write creates a tenant (on a shard, or where placement puts it) and the delete "
				+ "operation deletes it; a second create is 409, a delete of an unknown tenant 404")
		void createsAndDeletes() throws Exception {
			String onShard = newTenant("new");
			String placed = newTenant("placed");

			this.mvc.perform(post("/actuator/shardtenancy/" + onShard + "/create")
					.contentType(MediaType.APPLICATION_JSON)
					.content("{\"shard\": \"shard-2\"}"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.shard").value("shard-2"))
				.andExpect(jsonPath("$.state").value("ACTIVE"));
			this.mvc.perform(post("/actuator/shardtenancy/" + placed + "/create").contentType(MediaType.APPLICATION_JSON)
					.content("{}"))
				.andExpect(status().isOk());
			assertThat(admin.find(onShard).orElseThrow().shardId()).isEqualTo("shard-2");
			assertThat(admin.find(placed).orElseThrow().state()).isEqualTo(TenantState.ACTIVE);
			TenantContext.runAs(onShard, () -> audit.record("created over the endpoint"));
			assertThat(TenantContext.callAs(onShard, () -> audit.count())).isEqualTo(1);
			this.mvc.perform(post("/actuator/shardtenancy/" + onShard + "/create").contentType(MediaType.APPLICATION_JSON)
					.content("{}"))
				.andExpect(status().isConflict())
				.andExpect(jsonPath("$.exception").value("TenantAlreadyExistsException"));

			this.mvc.perform(delete("/actuator/shardtenancy/" + onShard))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.state").value("DELETED"));
			assertThat(admin.find(onShard).orElseThrow().state()).isEqualTo(TenantState.DELETED);
			this.mvc.perform(delete("/actuator/shardtenancy/" + newTenant("never")))
				.andExpect(status().isNotFound());
			this.mvc.perform(delete("/actuator/shardtenancy/bad!id")).andExpect(status().isBadRequest());
		}

		@Test
		@DisplayName("the write operation starts an online move, whose end the tenant read then shows")
		void startsAMove() throws Exception {
			String tenant = newTenant("mv");
			admin.create(tenant, "shard-1");
			TenantContext.runAs(tenant, () -> audit.record("to move"));
			double onlineMoves = onlineMoves();

			this.mvc.perform(post("/actuator/shardtenancy/" + tenant).contentType(MediaType.APPLICATION_JSON)
					.content("{\"targetShard\": \"shard-2\"}"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.moveId").isString())
				.andExpect(jsonPath("$.targetShard").value("shard-2"));
			await("the move flips " + tenant + " to shard-2").atMost(Duration.ofSeconds(60))
				.until(() -> tenancy.admin().find(tenant).orElseThrow().shardId().equals("shard-2"));

			this.mvc.perform(get("/actuator/shardtenancy/" + tenant)).andExpect(jsonPath("$.owner").value("shard-2"));
			assertThat(TenantContext.callAs(tenant, () -> audit.count())).isEqualTo(1);
			await("the online move's timer records the move").atMost(Duration.ofSeconds(60))
				.untilAsserted(() -> assertThat(onlineMoves() - onlineMoves).as("the online move's timer").isEqualTo(1));
			assertThat(registry.find("shardtenancy.moves.freeze").tags("mover", "online", "source", "shard-1")
				.timer()).isNotNull();
		}

		private double onlineMoves() {
			io.micrometer.core.instrument.Timer timer = registry.find("shardtenancy.moves")
				.tags("mover", "online", "source", "shard-1", "target", "shard-2")
				.timer();
			return timer != null ? timer.count() : 0;
		}

		@Test
		@DisplayName("the readiness group (availability probes) includes the shardTenancy indicator, which shows directory and listener state")
		void readiness() throws Exception {
			HealthEndpointGroups groups = context.getBean(HealthEndpointGroups.class);
			assertThat(groups.get("readiness").isMember("shardTenancy")).isTrue();
			assertThat(groups.get("liveness").isMember("shardTenancy")).isFalse();
			this.mvc.perform(get("/actuator/health/readiness")).andExpect(status().isOk());
			this.mvc.perform(get("/actuator/health/shardTenancy"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.status").value("UP"))
				.andExpect(jsonPath("$.details.directoryVersion").isNumber())
				.andExpect(jsonPath("$.details.ready").value(true))
				.andExpect(jsonPath("$.details.listener").value("none"));
		}

		@Test
		@DisplayName("the whole health is UP: Boot's db check covers the directory and each shard's pool, never the tenant-routing DataSource without a tenant")
		void databaseHealthPerDatabase() throws Exception {
			this.mvc.perform(get("/actuator/health"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.status").value("UP"))
				.andExpect(jsonPath("$.components.db.components.directory.status").value("UP"))
				.andExpect(jsonPath("$.components.db.components.shard-1.status").value("UP"))
				.andExpect(jsonPath("$.components.db.components.shard-2.status").value("UP"));
		}

	}

}
