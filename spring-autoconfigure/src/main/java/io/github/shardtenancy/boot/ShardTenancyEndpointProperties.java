package io.github.shardtenancy.boot;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * When the {@code shardtenancy} Actuator endpoint shows tenant ids (the one-tenant read and the timeline's tenants),
 * bound from {@code management.endpoint.shardtenancy.show-values} and {@code management.endpoint.shardtenancy.roles}
 * like Spring Boot's own endpoint settings; its access and exposure are Actuator's usual
 * {@code management.endpoint.shardtenancy.*} settings.
 */
@ConfigurationProperties("management.endpoint.shardtenancy")
public class ShardTenancyEndpointProperties extends EndpointShowValuesProperties {

}
