/**
 * Actuator support: the {@code shardtenancy} endpoint
 * ({@link io.github.shardtenancy.boot.actuate.ShardTenancyEndpoint}, with its web extension
 * {@link io.github.shardtenancy.boot.actuate.ShardTenancyEndpointWebExtension} for HTTP statuses and problem bodies)
 * and the readiness health indicator
 * ({@link io.github.shardtenancy.boot.actuate.ShardTenancyHealthIndicator}).
 */
@NullMarked
package io.github.shardtenancy.boot.actuate;

import org.jspecify.annotations.NullMarked;
