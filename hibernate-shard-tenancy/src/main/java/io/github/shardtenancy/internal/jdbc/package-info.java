/**
 * Implementation: the tenant connection (the fence's begin, auto-commit on the routing DataSource, refusal of
 * statements that cross tenants) and the routing DataSource.
 */
@NullMarked
package io.github.shardtenancy.internal.jdbc;

import org.jspecify.annotations.NullMarked;
