/**
 * Testing support: {@link io.github.shardtenancy.boot.test.WithTenant} binds a tenant around a Spring test and its
 * test-managed transaction. Needs {@code spring-test} on the test class path (an optional dependency of this
 * artifact).
 */
@NullMarked
package io.github.shardtenancy.boot.test;

import org.jspecify.annotations.NullMarked;
