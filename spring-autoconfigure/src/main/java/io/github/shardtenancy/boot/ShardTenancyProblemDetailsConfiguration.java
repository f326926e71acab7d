package io.github.shardtenancy.boot;

import io.github.shardtenancy.boot.web.ShardTenancyProblemDetails;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The library's typed errors answered with RFC 9457 problem details, in a servlet web application with Spring MVC.
 * Independent of the tenant header filter ({@code shard-tenancy.web.enabled}); switched off with
 * {@code shard-tenancy.web.problem-details.enabled=false}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
@ConditionalOnProperty(prefix = "shard-tenancy.web.problem-details", name = "enabled", matchIfMissing = true)
class ShardTenancyProblemDetailsConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ShardTenancyProblemDetails shardTenancyProblemDetails(ShardTenancyProperties properties) {
		ShardTenancyProperties.Web web = properties.getWeb();
		return new ShardTenancyProblemDetails(web.getProblemDetails().getRetryAfter(),
				web.isEnabled() ? web.getHeaderName() : null);
	}

}
