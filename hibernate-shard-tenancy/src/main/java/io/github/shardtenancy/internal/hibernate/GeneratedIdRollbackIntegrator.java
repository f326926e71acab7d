package io.github.shardtenancy.internal.hibernate;

import org.hibernate.HibernateException;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.event.service.spi.EventListenerRegistry;
import org.hibernate.event.spi.EventSource;
import org.hibernate.event.spi.EventType;
import org.hibernate.event.spi.PersistContext;
import org.hibernate.event.spi.PersistEvent;
import org.hibernate.event.spi.PersistEventListener;
import org.hibernate.integrator.spi.Integrator;
import org.hibernate.persister.entity.EntityPersister;
import org.hibernate.proxy.HibernateProxy;

/**
 * Makes a rolled-back persist retryable: when a transaction rolls back, every entity that was made persistent in it
 * with a generated identifier gets its identifier (and version) reset to the "unsaved" value, as if it had never
 * been persisted.
 *
 * <p>Why: the retry layer re-runs a transaction that the shard fence rejected. Hibernate does not roll back the
 * in-memory state of entities, so an entity built by the caller, persisted in the rejected attempt, would carry the
 * identifier generated then; the retry's {@code persist} would then fail with "detached entity passed to persist",
 * and Spring Data's {@code save} would take it for an existing row and fail to merge it. With the reset, the retry
 * persists it again cleanly: one row.
 *
 * <p>Registered through {@code META-INF/services/org.hibernate.integrator.spi.Integrator}; active only in a session
 * factory whose multi-tenant connection provider is the library's {@link ShardMultiTenantConnectionProvider}. The
 * listener runs before Hibernate's own persist listener and only registers an after-completion callback on the
 * session's action queue; a committed transaction leaves every entity untouched. Stateless and thread-safe.
 */
public final class GeneratedIdRollbackIntegrator implements Integrator {

	@Override
	public void integrate(Metadata metadata, BootstrapContext bootstrapContext,
			SessionFactoryImplementor sessionFactory) {
		if (ShardMultiTenantConnectionProvider.of(sessionFactory) == null) {
			return;
		}
		EventListenerRegistry listeners = sessionFactory.getServiceRegistry().getService(EventListenerRegistry.class);
		ResetOnRollback listener = new ResetOnRollback();
		listeners.prependListeners(EventType.PERSIST, listener);
		listeners.prependListeners(EventType.PERSIST_ONFLUSH, listener);
	}

	/** Notes each transient entity with an unset generated identifier as it is persisted. */
	static final class ResetOnRollback implements PersistEventListener {

		@Override
		public void onPersist(PersistEvent event) throws HibernateException {
			remember(event);
		}

		@Override
		public void onPersist(PersistEvent event, PersistContext createdAlready) throws HibernateException {
			remember(event);
		}

		private static void remember(PersistEvent event) {
			Object entity = event.getObject();
			if (entity == null || entity instanceof HibernateProxy) {
				return;
			}
			EventSource session = event.getSession();
			EntityPersister persister = session.getEntityPersister(event.getEntityName(), entity);
			if (persister.getGenerator() == null || persister.getIdentifier(entity, session) != null) {
				return; // assigned identifiers, or an entity that already has one: nothing to undo
			}
			session.getActionQueue().registerCallback((success, completed) -> {
				if (!success) {
					Object id = persister.getIdentifier(entity, completed);
					if (id != null) {
						Object version = persister.isVersioned() ? persister.getVersion(entity) : null;
						persister.resetIdentifier(entity, id, version, completed);
					}
				}
			});
		}

	}

}
