package io.github.shardtenancy.it.boot.replica;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A Spring Boot / JPA application on one PostgreSQL shard with a streaming replica: a service whose transactions
 * report which server ran them ({@code pg_is_in_recovery()}).
 */
@SpringBootApplication
public class ReplicaPgApplication {

	/** Transactions that tell whether a replica (hot standby) served them. */
	@Service
	public static class WhereService {

		@PersistenceContext
		private EntityManager entityManager;

		/** @return whether a replica ran this read-only transaction */
		@Transactional(readOnly = true)
		public boolean readOnly() {
			return inRecovery();
		}

		/** @return whether a replica ran this read-write transaction (never) */
		@Transactional
		public boolean readWrite() {
			return inRecovery();
		}

		private boolean inRecovery() {
			return (Boolean) this.entityManager.createNativeQuery("SELECT pg_is_in_recovery()").getSingleResult();
		}

	}

}
