/**
 * Load figures (this instance's traffic per tenant, storage per tenant read from the shards), the rebalancer's
 * planner and its execution through the mover.
 */
@NullMarked
package io.github.shardtenancy.internal.load;

import org.jspecify.annotations.NullMarked;
