package io.github.shardtenancy.it.paths;

import java.util.List;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * An application written the ordinary Spring way, to drive the ways it reaches a shard besides repositories: JDBC on
 * the tenant-routing DataSource inside and outside transactions, and native SQL through the {@link EntityManager}.
 */
@SpringBootApplication
public class PathsApplication {

	/** Native SQL through JPA, in a transaction. */
	@Service
	public static class NativeSql {

		@PersistenceContext
		private EntityManager entityManager;

		/**
		 * @param sql a statement without parameters
		 * @return its update count
		 */
		@Transactional
		public int update(String sql) {
			return this.entityManager.createNativeQuery(sql).executeUpdate();
		}

		/** @return the bodies of the tenant's memos, through JPQL */
		@Transactional(readOnly = true)
		public List<String> bodies() {
			return this.entityManager.createQuery("select m.body from Memo m order by m.body", String.class)
				.getResultList();
		}

		/** @param body the new memo's text */
		@Transactional
		public void persist(String body) {
			this.entityManager.persist(new Memo(body));
		}

	}

}
