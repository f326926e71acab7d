/**
 * The tenant of an HTTP request: {@link io.github.shardtenancy.boot.web.TenantHeaderFilter} binds it from a header.
 */
@NullMarked
package io.github.shardtenancy.boot.web;

import org.jspecify.annotations.NullMarked;
