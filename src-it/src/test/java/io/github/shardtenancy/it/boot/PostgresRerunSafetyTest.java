package io.github.shardtenancy.it.boot;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.retry.FenceRejection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.UnsafeToRerunException;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.boot.retry.ShardTenancyRetry;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.it.boot.rerun.RerunApplication;
import io.github.shardtenancy.it.boot.rerun.RerunAttempts;
import io.github.shardtenancy.it.boot.rerun.RerunAudit;
import io.github.shardtenancy.it.boot.rerun.RerunAuditRepository;
import io.github.shardtenancy.it.boot.rerun.RerunEntry;
import io.github.shardtenancy.it.boot.rerun.RerunEntryRepository;
import io.github.shardtenancy.it.boot.rerun.RerunEntryService;
import io.github.shardtenancy.it.boot.rerun.RerunnableEntryService;
import io.github.shardtenancy.it.support.AppInstance;
import io.github.shardtenancy.it.support.BootProperties;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A rejected attempt inside which independent work already committed is not silently run again, on a Spring Boot /
 * Spring Data JPA application ({@link RerunApplication}, with Spring Boot's own transaction manager) on the
 * PostgreSQL shards. Rejections come from the real fence: the tenant frozen before the call and thawed before the
 * first retry (its entry write is rejected, FROZEN, while the audit table, not a tenant table, accepts the audit), or
 * a move to shard-2 this application did not hear of (its first select on shard-1 is rejected, MOVED).
 */
@DisplayName("PostgreSQL: no silent duplicate when a retry would re-run committed work")
class PostgresRerunSafetyTest {

	static final List<TenantTable> TABLES = List.of(new TenantTable("pg_rerun_entry", "tenant_id"));

	static PostgresCluster cluster;

	static ConfigurableApplicationContext context;

	static AppInstance operator;

	static Topology topology;

	static Router router;

	static RerunEntryService service;

	static RerunnableEntryService rerunnable;

	static RerunAttempts attempts;

	static ShardTenancyRetry retry;

	static RerunEntryRepository entries;

	static RerunAuditRepository audits;

	static PlatformTransactionManager transactionManager;

	private String tenant;

	private DirectoryEntry created;

	private TenantContext.Scope scope;

	@BeforeAll
	static void start() {
		cluster = PostgresCluster.shared();
		List<String> properties = new ArrayList<>(List.of(
				"shard-tenancy.liquibase.shard-changelogs=db/it-pg/pg-rerun.xml",
				// The audit table holds rows of every tenant on purpose (RerunAudit).
				"shard-tenancy.entities.check=off",
				"shard-tenancy.sync.interval=1h",
				"shard-tenancy.sync.listen=false",
				"shard-tenancy.retry.max-delay=20ms",
				"shard-tenancy.actor=pg-rerun",
				"spring.liquibase.enabled=false",
				"spring.jmx.enabled=false"));
		properties.addAll(BootProperties.connectingTo(cluster));
		context = new SpringApplicationBuilder(RerunApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		topology = Internals.topology(context.getBean(ShardTenancy.class));
		router = Internals.router(context.getBean(ShardTenancy.class));
		service = context.getBean(RerunEntryService.class);
		rerunnable = context.getBean(RerunnableEntryService.class);
		attempts = context.getBean(RerunAttempts.class);
		retry = context.getBean(ShardTenancyRetry.class);
		entries = context.getBean(RerunEntryRepository.class);
		audits = context.getBean(RerunAuditRepository.class);
		transactionManager = context.getBean(PlatformTransactionManager.class);
		operator = AppInstance.plain(cluster, "pg-rerun-op", RouterSettings.defaults(), 2);
	}

	@AfterAll
	static void stop() {
		if (operator != null) {
			operator.close();
		}
		if (context != null) {
			context.close();
		}
	}

	@BeforeEach
	void createTenant() {
		this.tenant = PostgresCluster.tenant("rerun");
		this.created = context.getBean(TenantAdmin.class).create(this.tenant, "shard-1");
		attempts.reset();
		service.reset();
		rerunnable.reset();
		this.scope = TenantContext.bind(this.tenant);
	}

	@AfterEach
	void unbind() {
		this.scope.close();
	}

	/** Freezes the tenant on shard-1 now, and thaws it before the first retry. */
	private void freezeUntilFirstRetry() {
		fence(FenceState.FROZEN);
		attempts.beforeRetry(() -> fence(FenceState.OWNED));
	}

	private void fence(FenceState state) {
		ShardFence.set(topology.shard("shard-1").dataSource(), "shard-1", this.tenant, state, this.created.version());
	}

	/** Moves the tenant to shard-2 behind the application's back: it still routes the tenant to shard-1. */
	private void moveTheApplicationMisses() {
		new Mover(operator.directory, operator.router, operator.topology, TABLES, "pg-rerun-op", Runnable::run)
			.moveAndWait(this.tenant, "shard-2", MoveSettings.stopTheWorld());
		assertThat(router.cached(this.tenant)).get().extracting(DirectoryEntry::shardId).isEqualTo("shard-1");
	}

	private static long count(String shard, String sql, String value) throws SQLException {
		try (Connection c = topology.shard(shard).dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement(sql)) {
			ps.setString(1, value);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	private static long auditRows(String what) throws SQLException {
		long rows = 0;
		for (String shard : PostgresCluster.SHARD_IDS) {
			rows += count(shard, "SELECT count(*) FROM pg_rerun_audit WHERE what = ?", what);
		}
		return rows;
	}

	private long entryRows(String shard) throws SQLException {
		return count(shard, "SELECT count(*) FROM pg_rerun_entry WHERE tenant_id = ?", this.tenant);
	}

	private void assertFrozenRejection(UnsafeToRerunException ex) {
		assertThat(ex).isNotNull();
		assertThat(ex.tenantId()).isEqualTo(this.tenant);
		assertThat(ex.shardId()).isEqualTo("shard-1");
		assertThat(ex.directoryVersion()).isEqualTo(this.created.version());
		assertThat(ex.attempts()).isEqualTo(1);
		assertThat(ex.getCause()).isInstanceOf(SQLException.class);
		assertThat(((SQLException) ex.getCause()).getSQLState()).isEqualTo("40001");
		assertThat(FenceRejection.find(ex)).get().extracting(FenceRejection::reason).isEqualTo("FROZEN");
	}

	private static TransactionTemplate template(String name) {
		TransactionTemplate template = new TransactionTemplate(transactionManager);
		template.setName(name);
		return template;
	}

	@Test
	@DisplayName("a REQUIRES_NEW audit inside a rejected @Transactional method: typed exception, nothing re-run")
	void requiresNewAuditInsideRejectedAttemptIsNotRerun() throws SQLException {
		freezeUntilFirstRetry();

		UnsafeToRerunException ex = catchThrowableOfType(UnsafeToRerunException.class,
				() -> service.addAudited("pg audited"));

		assertFrozenRejection(ex);
		assertThat(ex.committedWork()).singleElement().asString().contains("RerunAuditLog.record");
		assertThat(ex).hasMessageContaining("RerunAuditLog.record").hasMessageContaining(this.tenant);
		assertThat(service.runs()).as("the body ran once").isEqualTo(1);
		assertThat(attempts.retries()).isZero();
		assertThat(auditRows("pg audited")).as("the audit record exists exactly once").isEqualTo(1);
		assertThat(entryRows("shard-1")).as("the rejected transaction's write is absent").isZero();
	}

	@Test
	@DisplayName("with @SafeToRerun on the class the method is re-run, and the audit record is written again")
	void safeToRerunClassIsRerunAndRepeatsTheAudit() throws SQLException {
		freezeUntilFirstRetry();

		rerunnable.addAudited("pg rerunnable");

		assertThat(rerunnable.runs()).isEqualTo(2);
		assertThat(attempts.retries()).isEqualTo(1);
		assertThat(auditRows("pg rerunnable")).as("the declared duplicate: once per attempt").isEqualTo(2);
		assertThat(entryRows("shard-1")).isEqualTo(1);
	}

	@Test
	@DisplayName("a REQUIRES_NEW TransactionTemplate inside a rejected @Transactional method: typed exception")
	void requiresNewTemplateInsideRejectedAttemptIsNotRerun() throws SQLException {
		freezeUntilFirstRetry();

		UnsafeToRerunException ex = catchThrowableOfType(UnsafeToRerunException.class,
				() -> service.addAuditedWithTemplate("pg templated"));

		assertFrozenRejection(ex);
		assertThat(ex.committedWork()).singleElement().asString().contains(RerunEntryService.AUDIT_TEMPLATE);
		assertThat(service.runs()).isEqualTo(1);
		assertThat(auditRows("pg templated")).isEqualTo(1);
		assertThat(entryRows("shard-1")).isZero();
	}

	@Test
	@DisplayName("a read-only REQUIRES_NEW inside a rejected attempt does not count: retried as before")
	void readOnlyRequiresNewDoesNotCount() throws SQLException {
		freezeUntilFirstRetry();

		long audited = service.addAfterReadOnlyLookup("pg looked up");

		assertThat(audited).isZero();
		assertThat(service.runs()).isEqualTo(2);
		assertThat(attempts.retries()).isEqualTo(1);
		assertThat(entryRows("shard-1")).isEqualTo(1);
	}

	@Test
	@DisplayName("a rejection with nothing committed inside (a stale route after a missed move) is retried as before")
	void staleRouteWithNothingCommittedIsRetried() throws SQLException {
		moveTheApplicationMisses();

		service.add("pg plain");

		assertThat(service.runs()).isEqualTo(2);
		assertThat(attempts.retries()).isEqualTo(1);
		assertThat(attempts.failures()).singleElement()
			.satisfies((failure) -> assertThat(FenceRejection.find(failure)).get()
				.extracting(FenceRejection::reason)
				.isEqualTo("MOVED"));
		assertThat(entryRows("shard-1")).isZero();
		assertThat(entryRows("shard-2")).isEqualTo(1);
	}

	@Test
	@DisplayName("ShardTenancyRetry.execute: another tenant's transaction commits, then this tenant's is rejected on a stale route")
	void sequentialTransactionsOfTwoTenantsSecondRejected() throws SQLException {
		String other = PostgresCluster.tenant("rerun-other");
		context.getBean(TenantAdmin.class).create(other, "shard-3");
		moveTheApplicationMisses();
		AtomicInteger runs = new AtomicInteger();
		TransactionTemplate first = template("other-tenant-entry");
		TransactionTemplate second = template("this-tenant-entry");

		UnsafeToRerunException ex = catchThrowableOfType(UnsafeToRerunException.class, () -> retry.run(() -> {
			runs.incrementAndGet();
			TenantContext.runAs(other,
					() -> first.executeWithoutResult((status) -> entries.saveAndFlush(new RerunEntry("sequential"))));
			second.executeWithoutResult((status) -> entries.saveAndFlush(new RerunEntry("sequential")));
		}));

		assertThat(ex).isNotNull();
		assertThat(ex.tenantId()).isEqualTo(this.tenant);
		assertThat(ex.shardId()).isEqualTo("shard-1");
		assertThat(ex.directoryVersion()).isEqualTo(this.created.version());
		assertThat(FenceRejection.find(ex)).get().extracting(FenceRejection::reason).isEqualTo("MOVED");
		assertThat(ex.committedWork()).containsExactly("transaction 'other-tenant-entry'");
		assertThat(runs).hasValue(1);
		assertThat(count("shard-3", "SELECT count(*) FROM pg_rerun_entry WHERE tenant_id = ?", other))
			.as("the other tenant's entry exists exactly once").isEqualTo(1);
		assertThat(entryRows("shard-1") + entryRows("shard-2")).isZero();
	}

	@Test
	@DisplayName("ShardTenancyRetry.safeToRerun() re-runs two sequential transactions, repeating the first")
	void safeToRerunProgrammaticRetryRepeatsTheFirstTransaction() throws SQLException {
		freezeUntilFirstRetry();
		AtomicInteger runs = new AtomicInteger();
		TransactionTemplate first = template("first-audit");
		TransactionTemplate second = template("second-entry");

		retry.safeToRerun().run(() -> {
			runs.incrementAndGet();
			first.executeWithoutResult((status) -> audits.save(new RerunAudit(this.tenant, "pg sequential safe")));
			second.executeWithoutResult((status) -> entries.saveAndFlush(new RerunEntry("pg sequential safe")));
		});

		assertThat(runs).hasValue(2);
		assertThat(auditRows("pg sequential safe")).isEqualTo(2);
		assertThat(entryRows("shard-1")).isEqualTo(1);
	}

	@Test
	@DisplayName("ShardTenancyRetry.execute with two sequential transactions of one tenant, the second rejected: typed exception")
	void secondOfTwoSequentialTransactionsRejected() throws SQLException {
		freezeUntilFirstRetry();
		AtomicInteger runs = new AtomicInteger();
		TransactionTemplate first = template("first-audit");
		TransactionTemplate second = template("second-entry");

		UnsafeToRerunException ex = catchThrowableOfType(UnsafeToRerunException.class, () -> retry.run(() -> {
			runs.incrementAndGet();
			first.executeWithoutResult((status) -> audits.save(new RerunAudit(this.tenant, "pg sequential")));
			second.executeWithoutResult((status) -> entries.saveAndFlush(new RerunEntry("pg sequential")));
		}));

		assertFrozenRejection(ex);
		assertThat(ex.committedWork()).containsExactly("transaction 'first-audit'");
		assertThat(runs).hasValue(1);
		assertThat(auditRows("pg sequential")).isEqualTo(1);
		assertThat(entryRows("shard-1")).isZero();
	}

}
