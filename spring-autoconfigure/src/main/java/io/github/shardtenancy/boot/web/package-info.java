/**
 * The tenant of an HTTP request: {@link io.github.shardtenancy.boot.web.TenantHeaderFilter} binds it from a header;
 * {@link io.github.shardtenancy.boot.web.ShardTenancyProblemDetails} answers the library's typed errors with RFC 9457
 * problem details.
 */
@NullMarked
package io.github.shardtenancy.boot.web;

import org.jspecify.annotations.NullMarked;
