/**
 * Creates the sample tenants at start-up, and seeds each new tenant's first customer.
 */
@NullMarked
package io.github.shardtenancy.sample.seed;

import org.jspecify.annotations.NullMarked;
