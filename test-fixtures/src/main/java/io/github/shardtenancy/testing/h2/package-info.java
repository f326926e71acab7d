/** Helpers for tests on in-memory H2 databases. */
@NullMarked
package io.github.shardtenancy.testing.h2;

import org.jspecify.annotations.NullMarked;
