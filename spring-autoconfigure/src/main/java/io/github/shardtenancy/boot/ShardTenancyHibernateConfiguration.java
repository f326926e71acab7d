package io.github.shardtenancy.boot;

import org.hibernate.context.spi.CurrentTenantIdentifierResolver;
import org.hibernate.engine.jdbc.connections.spi.MultiTenantConnectionProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Hibernate multi-tenancy switched on through Boot's Hibernate properties. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(HibernatePropertiesCustomizer.class)
class ShardTenancyHibernateConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ShardTenancyHibernatePropertiesCustomizer shardTenancyHibernatePropertiesCustomizer(
			MultiTenantConnectionProvider<String> provider, CurrentTenantIdentifierResolver<String> resolver) {
		return new ShardTenancyHibernatePropertiesCustomizer(provider, resolver);
	}

	/** Isolation levels and read-only of {@code @Transactional} applied to the shard transaction. */
	@Bean
	static ShardTenancyJpaDialectInstaller shardTenancyJpaDialectInstaller() {
		return new ShardTenancyJpaDialectInstaller();
	}

}
