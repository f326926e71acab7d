package io.github.shardtenancy.boot;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * When the {@code shardtenancyload} Actuator endpoint shows tenant ids (traffic, hot tenants, proposals and the last
 * execution), bound from {@code management.endpoint.shardtenancyload.show-values} and
 * {@code management.endpoint.shardtenancyload.roles} like Spring Boot's own endpoint settings.
 */
@ConfigurationProperties("management.endpoint.shardtenancyload")
public class ShardTenancyLoadEndpointProperties extends EndpointShowValuesProperties {

}
