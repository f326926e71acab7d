/**
 * Actuator support: the {@code shardtenancy} endpoint
 * ({@link io.github.shardtenancy.boot.actuate.ShardTenancyEndpoint}, with its web extension
 * {@link io.github.shardtenancy.boot.actuate.ShardTenancyEndpointWebExtension} for HTTP statuses and problem bodies),
 * the {@code shardtenancyload} endpoint
 * ({@link io.github.shardtenancy.boot.actuate.ShardTenancyLoadEndpoint}, with
 * {@link io.github.shardtenancy.boot.actuate.ShardTenancyLoadEndpointWebExtension}), the {@code shardtenancyinstances}
 * endpoint, and the readiness health indicator
 * ({@link io.github.shardtenancy.boot.actuate.ShardTenancyHealthIndicator}). The endpoints hide tenant ids unless
 * their {@code show-values} setting shows them, as Spring Boot's {@code env} endpoint hides values.
 */
@NullMarked
package io.github.shardtenancy.boot.actuate;

import org.jspecify.annotations.NullMarked;
