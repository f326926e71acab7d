package io.github.shardtenancy.boot;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.orm.jpa.support.OpenEntityManagerInViewInterceptor;

/**
 * Warns at start-up when open session in view is on ({@code spring.jpa.open-in-view}, which Boot switches on by
 * default): the request's Hibernate session is opened for the tenant bound when the request starts, so work for
 * another tenant in the same request fails with {@link io.github.shardtenancy.TenantSwitchedException} instead of
 * being routed (silently) to the first tenant's shard.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(OpenEntityManagerInViewInterceptor.class)
class ShardTenancyOpenInViewConfiguration {

	private static final Logger log = LoggerFactory.getLogger(ShardTenancyOpenInViewConfiguration.class);

	@Bean
	static SmartInitializingSingleton shardTenancyOpenInViewWarning(
			ObjectProvider<OpenEntityManagerInViewInterceptor> interceptor) {
		return () -> {
			if (interceptor.getIfAvailable() != null) {
				log.warn("spring.jpa.open-in-view is on: each request's Hibernate session is bound to the tenant of "
						+ "the request, and working as another tenant in the same request fails with "
						+ "TenantSwitchedException. Set spring.jpa.open-in-view=false unless every request works "
						+ "as one tenant only.");
			}
		};
	}

}
