package io.github.shardtenancy.boot;

import io.github.shardtenancy.boot.retry.ShardTenancyRetry;
import io.github.shardtenancy.boot.retry.ShardTenancyRetryAdvisor;
import io.github.shardtenancy.boot.retry.ShardTenancyRetryInterceptor;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.type.AnnotationMetadata;

/**
 * The automatic retry around outermost transactional methods and repository calls. The advisor is static and
 * looks the retry up lazily, so creating it early (auto-proxy creators do) does not create the router early.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(prefix = "shard-tenancy.retry", name = "enabled", matchIfMissing = true)
@Import(ShardTenancyRetryAdviceConfiguration.AutoProxyRegistrar.class)
class ShardTenancyRetryAdviceConfiguration {

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static ShardTenancyRetryAdvisor shardTenancyRetryAdvisor(ObjectProvider<ShardTenancyRetry> retry) {
		return new ShardTenancyRetryAdvisor(new ShardTenancyRetryInterceptor(retry::getObject));
	}

	/** Makes sure an auto-proxy creator applies the retry advisor, also where Boot's AOP configuration is off. */
	static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

		@Override
		public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
			AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		}

	}

}
