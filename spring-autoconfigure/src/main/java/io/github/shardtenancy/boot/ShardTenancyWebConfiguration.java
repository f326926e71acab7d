package io.github.shardtenancy.boot;

import io.github.shardtenancy.boot.web.ShardTenancyProblemDetails;
import io.github.shardtenancy.boot.web.TenantHeaderFilter;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * In a servlet web application with Spring MVC: the tenant from a request header ({@code shard-tenancy.web.enabled})
 * and the library's typed errors answered with RFC 9457 problem details
 * ({@code shard-tenancy.web.problem-details.enabled}), each switched off on its own.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
class ShardTenancyWebConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty(prefix = "shard-tenancy.web", name = "enabled", matchIfMissing = true)
	TenantHeaderFilter tenantHeaderFilter(ShardTenancyProperties properties) {
		ShardTenancyProperties.Web web = properties.getWeb();
		return new TenantHeaderFilter(web.getHeaderName(), web.getProblemDetails().isEnabled());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty(prefix = "shard-tenancy.web.problem-details", name = "enabled", matchIfMissing = true)
	ShardTenancyProblemDetails shardTenancyProblemDetails(ShardTenancyProperties properties) {
		ShardTenancyProperties.Web web = properties.getWeb();
		return new ShardTenancyProblemDetails(web.getProblemDetails().getRetryAfter(),
				web.isEnabled() ? web.getHeaderName() : null);
	}

}
