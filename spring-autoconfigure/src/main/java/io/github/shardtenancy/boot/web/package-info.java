/**
 * The tenant of an HTTP request: {@link io.github.shardtenancy.boot.web.TenantResolutionFilter} binds the tenant its
 * {@link io.github.shardtenancy.boot.web.TenantResolver}s find (a header, a path segment, a sub-domain, the session,
 * the authenticated principal or a JWT claim: {@link io.github.shardtenancy.boot.web.TenantResolvers}), once a
 * {@link io.github.shardtenancy.boot.web.TenantAccessPolicy} grants it to the authenticated principal
 * ({@link io.github.shardtenancy.boot.web.TenantAccessPolicies});
 * {@link io.github.shardtenancy.boot.web.ShardTenancyProblemDetails} answers the library's typed errors with RFC 9457
 * problem details.
 */
@NullMarked
package io.github.shardtenancy.boot.web;

import org.jspecify.annotations.NullMarked;
