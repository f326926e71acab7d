package io.github.shardtenancy.boot;

import io.github.shardtenancy.internal.hibernate.ShardMultiTenantConnectionProvider;
import io.github.shardtenancy.internal.hibernate.TenantIdentifierResolver;
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
			ShardMultiTenantConnectionProvider provider, TenantIdentifierResolver resolver) {
		return new ShardTenancyHibernatePropertiesCustomizer(provider, resolver);
	}

	/** Isolation levels and read-only of {@code @Transactional} applied to the shard transaction. */
	@Bean
	static ShardTenancyJpaDialectInstaller shardTenancyJpaDialectInstaller() {
		return new ShardTenancyJpaDialectInstaller();
	}

}
