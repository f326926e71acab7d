package io.github.shardtenancy.it.rerunstate;

import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.github.shardtenancy.it.boot.orders.AttemptRecorder;
import jakarta.persistence.EntityManagerFactory;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A Spring Boot application with plain JDBC repositories ({@link Owners}) on the tenant-routing DataSource, the shape
 * of the application of issue 33: its {@code @Transactional} services run under Spring Boot's
 * {@link JpaTransactionManager} (the primary one, as with Spring Data JPA on the class path) or under a
 * {@link JdbcTransactionManager} named {@value #JDBC_TRANSACTION_MANAGER}, and both are retried automatically.
 * Rejections are recorded by {@link AttemptRecorder}.
 */
@SpringBootApplication
@Import(AttemptRecorder.class)
public class RerunStateApplication {

	/** The bean name of the JDBC transaction manager. */
	public static final String JDBC_TRANSACTION_MANAGER = "jdbcTransactionManager";

	@Bean
	@Primary
	JpaTransactionManager transactionManager(EntityManagerFactory entityManagerFactory) {
		return new JpaTransactionManager(entityManagerFactory);
	}

	@Bean(JDBC_TRANSACTION_MANAGER)
	JdbcTransactionManager jdbcTransactionManager(DataSource dataSource) {
		return new JdbcTransactionManager(dataSource);
	}

	/**
	 * The {@code @Transactional} service methods: each runs a body (what a service method does with its arguments) in
	 * a transaction of one of the two managers, at the default isolation or at REPEATABLE READ, and counts its runs.
	 */
	@Service
	public static class Work {

		private final EntityManagerFactory entityManagerFactory;

		private final AtomicInteger runs = new AtomicInteger();

		private volatile boolean lastRunHadEntityManager;

		Work(EntityManagerFactory entityManagerFactory) {
			this.entityManagerFactory = entityManagerFactory;
		}

		@Transactional
		public void jpa(Runnable body) {
			run(body);
		}

		@Transactional(transactionManager = JDBC_TRANSACTION_MANAGER)
		public void jdbc(Runnable body) {
			run(body);
		}

		@Transactional(isolation = Isolation.REPEATABLE_READ)
		public void jpaRepeatableRead(Runnable body) {
			run(body);
		}

		@Transactional(transactionManager = JDBC_TRANSACTION_MANAGER, isolation = Isolation.REPEATABLE_READ)
		public void jdbcRepeatableRead(Runnable body) {
			run(body);
		}

		private void run(Runnable body) {
			this.runs.incrementAndGet();
			this.lastRunHadEntityManager = TransactionSynchronizationManager.hasResource(this.entityManagerFactory);
			body.run();
		}

		/** @return how many times a body ran since the last {@link #reset()} */
		public int runs() {
			return this.runs.get();
		}

		/** @return whether the last run's transaction was the JPA transaction manager's (an EntityManager bound) */
		public boolean lastRunHadEntityManager() {
			return this.lastRunHadEntityManager;
		}

		public void reset() {
			this.runs.set(0);
		}

	}

}
