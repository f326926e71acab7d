/**
 * The tenant of an HTTP request: {@link io.github.shardtenancy.boot.web.TenantHeaderFilter} binds it from a header.
 */
package io.github.shardtenancy.boot.web;
