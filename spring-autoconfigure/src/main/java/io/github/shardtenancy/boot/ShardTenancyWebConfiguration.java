package io.github.shardtenancy.boot;

import io.github.shardtenancy.boot.web.TenantHeaderFilter;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The tenant from a request header, in a servlet web application with Spring MVC. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
@ConditionalOnProperty(prefix = "shard-tenancy.web", name = "enabled", matchIfMissing = true)
class ShardTenancyWebConfiguration {

	@Bean
	@ConditionalOnMissingBean
	TenantHeaderFilter tenantHeaderFilter(ShardTenancyProperties properties) {
		ShardTenancyProperties.Web web = properties.getWeb();
		return new TenantHeaderFilter(web.getHeaderName(), web.getProblemDetails().isEnabled());
	}

}
