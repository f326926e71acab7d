package io.github.shardtenancy.boot;

import java.util.Map;
import java.util.Objects;

import io.github.shardtenancy.ShardTenancy;
import org.hibernate.context.spi.CurrentTenantIdentifierResolver;
import org.hibernate.engine.jdbc.connections.spi.MultiTenantConnectionProvider;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;

/**
 * Switches Hibernate multi-tenancy on under Spring Boot: puts the connection provider and the tenant identifier
 * resolver into the Hibernate properties (Boot ignores a bare provider bean), and makes every transaction borrow,
 * fence and release its own shard connection ({@value #HANDLING_MODE}), instead of Spring's default of holding a
 * connection for the whole session.
 *
 * <p>Stateless apart from the two objects it hands over; thread-safe.
 */
public class ShardTenancyHibernatePropertiesCustomizer implements HibernatePropertiesCustomizer {

	/** {@code hibernate.multi_tenant_connection_provider}. */
	public static final String CONNECTION_PROVIDER = "hibernate.multi_tenant_connection_provider";

	/** {@code hibernate.tenant_identifier_resolver}. */
	public static final String IDENTIFIER_RESOLVER = "hibernate.tenant_identifier_resolver";

	/** {@code hibernate.connection.handling_mode}. */
	public static final String CONNECTION_HANDLING = ShardTenancy.CONNECTION_HANDLING;

	/** The connection handling mode set: acquire at first use, release at the end of each transaction. */
	public static final String HANDLING_MODE = ShardTenancy.HANDLING_MODE;

	private final MultiTenantConnectionProvider<String> provider;

	private final CurrentTenantIdentifierResolver<String> resolver;

	/**
	 * @param provider the connection provider; never {@code null}
	 * @param resolver the tenant identifier resolver; never {@code null}
	 */
	public ShardTenancyHibernatePropertiesCustomizer(MultiTenantConnectionProvider<String> provider,
			CurrentTenantIdentifierResolver<String> resolver) {
		this.provider = Objects.requireNonNull(provider, "provider");
		this.resolver = Objects.requireNonNull(resolver, "resolver");
	}

	@Override
	public void customize(Map<String, Object> hibernateProperties) {
		hibernateProperties.put(CONNECTION_PROVIDER, this.provider);
		hibernateProperties.put(IDENTIFIER_RESOLVER, this.resolver);
		hibernateProperties.put(CONNECTION_HANDLING, HANDLING_MODE);
	}

}
