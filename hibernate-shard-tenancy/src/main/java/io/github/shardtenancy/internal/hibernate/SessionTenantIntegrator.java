package io.github.shardtenancy.internal.hibernate;

import io.github.shardtenancy.SessionTenantCheck;
import org.hibernate.HibernateException;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.event.service.spi.EventListenerRegistry;
import org.hibernate.event.spi.EventType;
import org.hibernate.event.spi.LoadEvent;
import org.hibernate.event.spi.LoadEventListener;
import org.hibernate.event.spi.PostLoadEvent;
import org.hibernate.event.spi.PostLoadEventListener;
import org.hibernate.integrator.spi.Integrator;

/**
 * Refuses to hand an entity of one tenant to work bound to another: on every entity load of a session
 * ({@code find}, {@code getReference}, the initialisation of a lazy proxy, also when the entity is served from the
 * persistence context without any statement) and after every entity is read from a result set, the session's tenant
 * is compared with the tenant bound on the thread ({@link SessionTenantCheck}), and a difference raises
 * {@link io.github.shardtenancy.TenantSwitchedException} before the entity is returned.
 *
 * <p>Why: a session opened for one tenant and kept for longer than one transaction (open session in view keeps it for
 * the whole web request) holds that tenant's entities in its persistence context. Work bound to another tenant later
 * in the same session would be served those entities without a connection being borrowed, so the connection
 * provider's own check would never run.
 *
 * <p>Registered through {@code META-INF/services/org.hibernate.integrator.spi.Integrator}; active only in a session
 * factory whose multi-tenant connection provider is the library's {@link ShardMultiTenantConnectionProvider}. Cost per
 * load: one thread-local read and one string comparison. Stateless and thread-safe.
 */
public final class SessionTenantIntegrator implements Integrator {

	@Override
	public void integrate(Metadata metadata, BootstrapContext bootstrapContext,
			SessionFactoryImplementor sessionFactory) {
		if (ShardMultiTenantConnectionProvider.of(sessionFactory) == null) {
			return;
		}
		EventListenerRegistry listeners = sessionFactory.getServiceRegistry().getService(EventListenerRegistry.class);
		SameTenant listener = new SameTenant();
		listeners.prependListeners(EventType.LOAD, listener);
		listeners.prependListeners(EventType.POST_LOAD, listener);
	}

	/** Checks the session's tenant against the bound tenant on each load. */
	static final class SameTenant implements LoadEventListener, PostLoadEventListener {

		@Override
		public void onLoad(LoadEvent event, LoadType loadType) throws HibernateException {
			SessionTenantCheck.requireSessionOf(event.getSession().getTenantIdentifierValue());
		}

		@Override
		public void onPostLoad(PostLoadEvent event) {
			SessionTenantCheck.requireSessionOf(event.getSession().getTenantIdentifierValue());
		}

	}

}
