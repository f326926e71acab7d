package io.github.shardtenancy.boot;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.boot.web.TenantAccessPolicies;
import io.github.shardtenancy.boot.web.TenantAccessPolicy;
import io.github.shardtenancy.boot.web.TenantGrants;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With Spring Security on the class path, in a servlet web application: the built-in {@link TenantAccessPolicy} that
 * {@code shard-tenancy.web.access.policy} names, {@code claim}, or {@code lookup} through the application's
 * {@link TenantGrants} bean (also when the property is not set). Both back off when the application defines its own
 * {@link TenantAccessPolicy}. The filter of {@link ShardTenancyWebConfiguration} asks the policy, and refuses to start
 * without one when a resolver reads a source the client chooses.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = { "org.springframework.web.servlet.DispatcherServlet",
		ShardTenancyWebConfiguration.SECURITY_CONTEXT })
class ShardTenancyWebAccessConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty(prefix = "shard-tenancy.web.access", name = "policy", havingValue = "claim")
	TenantAccessPolicy claimTenantAccessPolicy(ShardTenancyProperties properties) {
		ShardTenancyProperties.Access access = properties.getWeb().getAccess();
		try {
			return TenantAccessPolicies.claim(access.getClaim(), access.getAuthorityPrefix());
		}
		catch (IllegalArgumentException ex) {
			throw new ShardTenancyConfigurationException(ShardTenancyWebConfiguration.ACCESS_POLICY,
					ShardTenancyWebConfiguration.ACCESS_POLICY + "=claim needs shard-tenancy.web.access.claim and "
							+ "shard-tenancy.web.access.authority-prefix: " + ex.getMessage());
		}
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(TenantGrants.class)
	@ConditionalOnProperty(prefix = "shard-tenancy.web.access", name = "policy", havingValue = "lookup",
			matchIfMissing = true)
	TenantAccessPolicy lookupTenantAccessPolicy(TenantGrants grants) {
		return TenantAccessPolicies.lookup(grants);
	}

}
