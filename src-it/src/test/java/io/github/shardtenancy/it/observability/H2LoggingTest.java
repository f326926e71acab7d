package io.github.shardtenancy.it.observability;

import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import ch.qos.logback.classic.Level;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.boot.retry.ShardTenancyRetry;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.it.boot.H2App;
import io.github.shardtenancy.it.boot.orders.PurchaseOrder;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.springframework.orm.jpa.EntityManagerFactoryUtils;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the library logs on two real Spring Boot instances on H2: fence rejections once
 * ({@link FenceRejectionLoggingContract}); Hibernate's own lines for other SQL errors; and the tenant and shard in
 * the MDC of every log line of a transaction, gone after it (commit, rollback, retry, and on a pooled thread reused
 * afterwards).
 */
@DisplayName("Fence rejections are logged once; tenant and shard are in the MDC while a transaction runs (H2, Boot)")
class H2LoggingTest extends FenceRejectionLoggingContract {

	private static final org.slf4j.Logger log = LoggerFactory.getLogger(H2LoggingTest.class);

	private static H2App a;

	private static H2App b;

	@BeforeAll
	static void start() {
		String cluster = H2App.newCluster("logging");
		a = H2App.start(cluster, "instance-a");
		b = H2App.start(cluster, "instance-b");
	}

	@AfterAll
	static void stop() {
		b.close();
		a.close();
	}

	@Override
	String movedByTheOtherInstance(String t) {
		a.admin().create(t, "shard-1");
		TenantContext.runAs(t, () -> a.orders().place("before the move"));
		b.admin().move(t, "shard-2");
		return t;
	}

	@Override
	String staleOnShard1(String t) {
		DirectoryEntry entry = a.admin().create(t, "shard-1");
		ShardFence.set(a.topology().dataSource("shard-1"), "shard-1", t, FenceState.OWNED, entry.version() + 1_000);
		return t;
	}

	@Override
	void place(String tenant, String customer) {
		TenantContext.runAs(tenant, () -> a.orders().place(customer));
	}

	@Override
	long orders(String shard, String tenant, String customer) {
		return a.orders(shard, tenant, customer);
	}

	@Test
	@DisplayName("control: an SQL error that is not a fence rejection is still logged by Hibernate at WARN (the capture "
			+ "sees Hibernate's logger)")
	void otherSqlErrorsAreStillLoggedByHibernate() {
		String t = "log-control";
		a.admin().create(t, "shard-1");
		TransactionTemplate transactions = a.bean(TransactionTemplate.class);
		EntityManagerFactory factory = a.bean(EntityManagerFactory.class);

		assertThatThrownBy(() -> TenantContext.runAs(t, () -> transactions.executeWithoutResult((status) -> {
			EntityManager entityManager = EntityManagerFactoryUtils.getTransactionalEntityManager(factory);
			entityManager.createNativeQuery("select * from no_such_table").getResultList();
		}))).isNotNull();

		assertThat(events()).filteredOn((event) -> event.getLevel() == Level.WARN)
			.filteredOn((event) -> event.getLoggerName().startsWith("org.hibernate"))
			.isNotEmpty();
	}

	@Test
	@DisplayName("a log line inside a transaction carries tenant and shard in the MDC; after the commit the MDC holds "
			+ "what it held before")
	void transactionLogLinesCarryTenantAndShard() {
		String t = "mdc-commit";
		a.admin().create(t, "shard-1");
		TransactionTemplate transactions = a.bean(TransactionTemplate.class);
		MDC.put(TenantContext.MDC_TENANT, "outer-value");
		try {
			TenantContext.runAs(t, () -> transactions.executeWithoutResult((status) -> {
				a.repository().count();
				log.info("inside the transaction");
			}));
			assertThat(MDC.get(TenantContext.MDC_TENANT)).as("restored").isEqualTo("outer-value");
			assertThat(MDC.get(TenantContext.MDC_SHARD)).as("removed").isNull();
		}
		finally {
			MDC.remove(TenantContext.MDC_TENANT);
		}
		assertThat(events()).filteredOn((event) -> event.getFormattedMessage().equals("inside the transaction"))
			.singleElement()
			.satisfies((event) -> assertThat(event.getMDCPropertyMap()).containsEntry(TenantContext.MDC_TENANT, t)
				.containsEntry(TenantContext.MDC_SHARD, "shard-1"));
	}

	@Test
	@DisplayName("after a rollback the MDC keys are gone")
	void rollbackClearsTheMdc() {
		String t = "mdc-rollback";
		a.admin().create(t, "shard-1");
		TransactionTemplate transactions = a.bean(TransactionTemplate.class);

		assertThatThrownBy(() -> TenantContext.runAs(t, () -> transactions.executeWithoutResult((status) -> {
			a.repository().count();
			log.info("before the rollback");
			throw new IllegalStateException("roll back");
		}))).isInstanceOf(IllegalStateException.class);

		assertThat(MDC.get(TenantContext.MDC_TENANT)).isNull();
		assertThat(MDC.get(TenantContext.MDC_SHARD)).isNull();
		assertThat(events()).filteredOn((event) -> event.getFormattedMessage().equals("before the rollback"))
			.singleElement()
			.satisfies((event) -> assertThat(event.getMDCPropertyMap()).containsEntry(TenantContext.MDC_TENANT, t));
	}

	@Test
	@DisplayName("a retried unit of work: the attempt that commits logs the new shard, and after the retry the MDC keys "
			+ "are gone")
	void retriedWorkLogsTheShardOfItsAttempt() {
		String t = movedByTheOtherInstance("mdc-retry");
		this.appender.list.clear();
		TransactionTemplate transactions = a.bean(TransactionTemplate.class);
		EntityManagerFactory factory = a.bean(EntityManagerFactory.class);
		ShardTenancyRetry retry = a.bean(ShardTenancyRetry.class);

		TenantContext.runAs(t, () -> retry.run(() -> transactions.executeWithoutResult((status) -> {
			EntityManagerFactoryUtils.getTransactionalEntityManager(factory)
				.persist(new PurchaseOrder("retried", 1));
			log.info("attempt body");
		})));

		assertThat(MDC.get(TenantContext.MDC_TENANT)).isNull();
		assertThat(MDC.get(TenantContext.MDC_SHARD)).isNull();
		assertThat(a.orders("shard-2", t, "retried")).isEqualTo(1);
		assertThat(events()).filteredOn((event) -> event.getFormattedMessage().equals("attempt body"))
			.singleElement()
			.satisfies((event) -> assertThat(event.getMDCPropertyMap()).containsEntry(TenantContext.MDC_TENANT, t)
				.containsEntry(TenantContext.MDC_SHARD, "shard-2"));
	}

	@Test
	@DisplayName("a pooled thread that ran a transaction (committed, then rolled back) carries no tenant or shard in "
			+ "its MDC for its next task")
	void pooledThreadIsCleanAfterwards() throws Exception {
		String t = "mdc-pooled";
		a.admin().create(t, "shard-1");
		TransactionTemplate transactions = a.bean(TransactionTemplate.class);
		ExecutorService pool = Executors.newSingleThreadExecutor();
		try {
			AtomicReference<Thread> first = new AtomicReference<>();
			AtomicReference<String> inside = new AtomicReference<>();
			pool.submit(() -> {
				first.set(Thread.currentThread());
				TenantContext.runAs(t, () -> transactions.executeWithoutResult((status) -> {
					a.repository().count();
					inside.set(MDC.get(TenantContext.MDC_SHARD));
				}));
			}).get(30, TimeUnit.SECONDS);
			pool.submit(() -> {
				try {
					TenantContext.runAs(t, () -> transactions.executeWithoutResult((status) -> {
						a.repository().count();
						throw new IllegalStateException("roll back");
					}));
				}
				catch (IllegalStateException expected) {
					// rolled back
				}
			}).get(30, TimeUnit.SECONDS);
			AtomicReference<Thread> second = new AtomicReference<>();
			AtomicReference<Map<String, String>> afterwards = new AtomicReference<>();
			pool.submit(() -> {
				second.set(Thread.currentThread());
				afterwards.set(MDC.getCopyOfContextMap());
			}).get(30, TimeUnit.SECONDS);

			assertThat(inside.get()).isEqualTo("shard-1");
			assertThat(second.get()).isSameAs(first.get());
			Map<String, String> mdc = (afterwards.get() != null) ? afterwards.get() : Map.of();
			assertThat(mdc).doesNotContainKeys(TenantContext.MDC_TENANT, TenantContext.MDC_SHARD);
		}
		finally {
			pool.shutdownNow();
		}
	}

}
