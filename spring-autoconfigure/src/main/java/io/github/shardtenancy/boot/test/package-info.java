/**
 * Testing support: {@link io.github.shardtenancy.boot.test.WithTenant} binds a tenant around a Spring test and its
 * test-managed transaction. Needs {@code spring-test} on the test class path (an optional dependency of this
 * artifact).
 */
package io.github.shardtenancy.boot.test;
