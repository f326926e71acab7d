package io.github.shardtenancy.boot;

import io.github.shardtenancy.ShardTopology;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.UnsafeToRerunException;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.boot.rerunapp.AuditRecord;
import io.github.shardtenancy.boot.rerunapp.AuditRecordRepository;
import io.github.shardtenancy.boot.rerunapp.Entry;
import io.github.shardtenancy.boot.rerunapp.EntryRepository;
import io.github.shardtenancy.boot.rerunapp.EntryService;
import io.github.shardtenancy.boot.rerunapp.RerunApplication;
import io.github.shardtenancy.boot.retry.CommittedTransactionListener;
import io.github.shardtenancy.boot.retry.ShardTenancyRetry;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.boot.testapp.RecordingRetryListener;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.retry.FenceRejection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A rejected attempt inside which independent work already committed (a {@code REQUIRES_NEW} audit record, the first
 * of two sequential transactions) is not silently run again, on a Spring Boot / Spring Data JPA application with two
 * H2 shards and a transaction manager the application defines itself. The tenant is frozen before the call, so its
 * entry write is rejected by the real fence (FROZEN), and thawed before the first retry; the audit table is not a
 * tenant table, so the audit commits meanwhile.
 */
@SpringBootTest(classes = RerunApplication.class, properties = {
		"shard-tenancy.web.access.policy=none",
		"shard-tenancy.directory.url=jdbc:h2:mem:rerun-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:rerun-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:rerun-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.liquibase.shard-changelogs=db/rerun-shard.xml",
		// The audit table holds rows of every tenant on purpose (AuditRecord).
		"shard-tenancy.entities.check=off",
		"shard-tenancy.sync.interval=1h",
		"shard-tenancy.retry.max-delay=50ms",
		"shard-tenancy.actor=tests" })
class RerunSafetyTests {

	private static final AtomicInteger TENANTS = new AtomicInteger();

	@Autowired
	private TenantAdmin admin;

	@Autowired
	private ShardTopology topology;

	@Autowired
	private EntryService service;

	@Autowired
	private EntryRepository entries;

	@Autowired
	private AuditRecordRepository audits;

	@Autowired
	private RecordingRetryListener listener;

	@Autowired
	private ShardTenancyRetry retry;

	@Autowired
	private JpaTransactionManager transactionManager;

	private String tenant;

	private DirectoryEntry created;

	private TenantContext.Scope scope;

	@BeforeEach
	void createFrozenTenant() {
		this.tenant = "rerun-" + TENANTS.incrementAndGet();
		this.created = this.admin.create(this.tenant, "shard-1");
		this.listener.reset();
		this.service.reset();
		this.scope = TenantContext.bind(this.tenant);
		fence(FenceState.FROZEN);
		this.listener.beforeRetry((n) -> fence(FenceState.OWNED));
	}

	@AfterEach
	void unbind() {
		this.scope.close();
	}

	private void fence(FenceState state) {
		ShardFence.set(this.topology.dataSource("shard-1"), "shard-1", this.tenant, state,
				this.created.version());
	}

	private long rows(String sql, String value) throws SQLException {
		try (Connection c = this.topology.dataSource("shard-1").getConnection();
				PreparedStatement ps = c.prepareStatement(sql)) {
			ps.setString(1, value);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	private long auditRows(String what) throws SQLException {
		return rows("SELECT COUNT(*) FROM rerun_audit WHERE what = ?", what);
	}

	private long entryRows() throws SQLException {
		return rows("SELECT COUNT(*) FROM rerun_entry WHERE tenant_id = ?", this.tenant);
	}

	private void assertRejectionDetails(UnsafeToRerunException ex) {
		assertThat(ex).isNotNull();
		assertThat(ex.tenantId()).isEqualTo(this.tenant);
		assertThat(ex.shardId()).isEqualTo("shard-1");
		assertThat(ex.directoryVersion()).isEqualTo(this.created.version());
		assertThat(ex.attempts()).isEqualTo(1);
		assertThat(ex.getCause()).isInstanceOf(SQLException.class);
		assertThat(FenceRejection.find(ex)).get().extracting(FenceRejection::reason).isEqualTo("FROZEN");
	}

	@Test
	@DisplayName("the listener is on the application's own transaction manager, once")
	void listenerIsInstalledOnceOnTheApplicationsTransactionManager() {
		assertThat(this.transactionManager.getTransactionExecutionListeners())
			.filteredOn(CommittedTransactionListener.class::isInstance)
			.hasSize(1);
	}

	@Test
	@DisplayName("a REQUIRES_NEW audit inside a rejected @Transactional method: typed exception, nothing re-run")
	void requiresNewAuditInsideRejectedAttemptIsNotRerun() throws SQLException {
		UnsafeToRerunException ex = catchThrowableOfType(UnsafeToRerunException.class,
				() -> this.service.addAudited("audited"));

		assertRejectionDetails(ex);
		assertThat(ex.committedWork()).singleElement().asString().contains(AuditRecord.class.getPackageName())
			.contains("AuditLog.record");
		assertThat(ex).hasMessageContaining("AuditLog.record").hasMessageContaining(this.tenant);
		assertThat(this.service.runs()).as("the body ran once").isEqualTo(1);
		assertThat(this.listener.retries()).isZero();
		assertThat(auditRows("audited")).as("the audit record exists exactly once").isEqualTo(1);
		assertThat(entryRows()).as("the rejected transaction's write is absent").isZero();
	}

	@Test
	@DisplayName("with @SafeToRerun the method is re-run, and the audit record is written again")
	void safeToRerunMethodIsRerunAndRepeatsTheAudit() throws SQLException {
		this.service.addAuditedSafeToRerun("rerunnable");

		assertThat(this.service.runs()).isEqualTo(2);
		assertThat(this.listener.retries()).isEqualTo(1);
		assertThat(auditRows("rerunnable")).as("the declared duplicate: once per attempt").isEqualTo(2);
		assertThat(entryRows()).isEqualTo(1);
	}

	@Test
	@DisplayName("a REQUIRES_NEW TransactionTemplate inside a rejected @Transactional method: typed exception")
	void requiresNewTemplateInsideRejectedAttemptIsNotRerun() throws SQLException {
		UnsafeToRerunException ex = catchThrowableOfType(UnsafeToRerunException.class,
				() -> this.service.addAuditedWithTemplate("templated"));

		assertRejectionDetails(ex);
		assertThat(ex.committedWork()).singleElement().asString().contains(EntryService.AUDIT_TEMPLATE);
		assertThat(this.service.runs()).isEqualTo(1);
		assertThat(auditRows("templated")).isEqualTo(1);
		assertThat(entryRows()).isZero();
	}

	@Test
	@DisplayName("a read-only REQUIRES_NEW inside a rejected attempt does not count: retried as before")
	void readOnlyRequiresNewDoesNotCount() throws SQLException {
		long audited = this.service.addAfterReadOnlyLookup("looked up");

		assertThat(audited).isZero();
		assertThat(this.service.runs()).isEqualTo(2);
		assertThat(this.listener.retries()).isEqualTo(1);
		assertThat(entryRows()).isEqualTo(1);
	}

	@Test
	@DisplayName("a rejection with nothing committed inside is retried exactly as before")
	void rejectionWithNothingCommittedIsRetried() throws SQLException {
		this.service.add("plain");

		assertThat(this.service.runs()).isEqualTo(2);
		assertThat(this.listener.retries()).isEqualTo(1);
		assertThat(this.listener.failures()).singleElement()
			.satisfies((failure) -> assertThat(FenceRejection.find(failure)).isPresent());
		assertThat(entryRows()).isEqualTo(1);
	}

	@Test
	@DisplayName("a rejection raised after the method's own transaction committed does not count that commit: retried as before")
	void ownCommitIsNotMistakenForInnerWork() throws SQLException {
		this.service.auditThenEntryAfterCommit("after own commit");

		assertThat(this.service.runs()).isEqualTo(2);
		assertThat(this.listener.retries()).isEqualTo(1);
		assertThat(this.listener.failures()).singleElement()
			.satisfies((failure) -> assertThat(FenceRejection.find(failure)).isPresent());
		assertThat(auditRows("after own commit")).as("the own transaction ran (and committed) twice, as before")
			.isEqualTo(2);
		assertThat(entryRows()).isEqualTo(1);
	}

	@Test
	@DisplayName("ShardTenancyRetry.execute with two sequential transactions, the second rejected: typed exception")
	void secondOfTwoSequentialTransactionsRejected() throws SQLException {
		AtomicInteger runs = new AtomicInteger();
		TransactionTemplate first = template("first-audit");
		TransactionTemplate second = template("second-entry");

		UnsafeToRerunException ex = catchThrowableOfType(UnsafeToRerunException.class, () -> this.retry.run(() -> {
			runs.incrementAndGet();
			first.executeWithoutResult((status) -> this.audits.save(new AuditRecord(this.tenant, "sequential")));
			second.executeWithoutResult((status) -> this.entries.saveAndFlush(new Entry("sequential")));
		}));

		assertRejectionDetails(ex);
		assertThat(ex.committedWork()).containsExactly("transaction 'first-audit'");
		assertThat(runs).hasValue(1);
		assertThat(auditRows("sequential")).isEqualTo(1);
		assertThat(entryRows()).isZero();
	}

	@Test
	@DisplayName("ShardTenancyRetry.safeToRerun() re-runs two sequential transactions, repeating the first")
	void safeToRerunProgrammaticRetryRepeatsTheFirstTransaction() throws SQLException {
		AtomicInteger runs = new AtomicInteger();
		TransactionTemplate first = template("first-audit");
		TransactionTemplate second = template("second-entry");

		this.retry.safeToRerun().run(() -> {
			runs.incrementAndGet();
			first.executeWithoutResult((status) -> this.audits.save(new AuditRecord(this.tenant, "sequential safe")));
			second.executeWithoutResult((status) -> this.entries.saveAndFlush(new Entry("sequential safe")));
		});

		assertThat(runs).hasValue(2);
		assertThat(auditRows("sequential safe")).isEqualTo(2);
		assertThat(entryRows()).isEqualTo(1);
	}

	@Test
	@DisplayName("ShardTenancyRetry.execute of one transaction, rejected: retried as before")
	void singleTransactionInProgrammaticRetryIsRetried() throws SQLException {
		AtomicInteger runs = new AtomicInteger();
		TransactionTemplate only = template("only");

		this.retry.run(() -> {
			runs.incrementAndGet();
			only.executeWithoutResult((status) -> this.entries.saveAndFlush(new Entry("single")));
		});

		assertThat(runs).hasValue(2);
		assertThat(entryRows()).isEqualTo(1);
	}

	private TransactionTemplate template(String name) {
		TransactionTemplate template = new TransactionTemplate(this.transactionManager);
		template.setName(name);
		return template;
	}

}
