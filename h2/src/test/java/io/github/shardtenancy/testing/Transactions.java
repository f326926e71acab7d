package io.github.shardtenancy.testing;

import java.util.function.Function;

import io.github.shardtenancy.TenantContext;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.Transaction;

/** Runs work in one Hibernate transaction as a tenant, the way an application would without Spring. */
public final class Transactions {

	private Transactions() {
	}

	/**
	 * Binds the tenant, opens a session, runs the work in a transaction and commits; rolls back and rethrows if
	 * anything fails.
	 * @param sessionFactory the session factory
	 * @param tenantId the tenant to bind
	 * @param work the work
	 * @param <T> its result
	 * @return its result
	 */
	public static <T> T inTransaction(SessionFactory sessionFactory, String tenantId, Function<Session, T> work) {
		try (TenantContext.Scope scope = TenantContext.bind(tenantId); Session session = sessionFactory.openSession()) {
			Transaction tx = session.beginTransaction();
			try {
				T result = work.apply(session);
				tx.commit();
				return result;
			}
			catch (RuntimeException ex) {
				if (tx.isActive()) {
					tx.rollback();
				}
				throw ex;
			}
		}
	}

}
