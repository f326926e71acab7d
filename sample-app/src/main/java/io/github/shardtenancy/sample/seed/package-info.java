/**
 * Creates the sample tenants and their first orders at start-up.
 */
@NullMarked
package io.github.shardtenancy.sample.seed;

import org.jspecify.annotations.NullMarked;
