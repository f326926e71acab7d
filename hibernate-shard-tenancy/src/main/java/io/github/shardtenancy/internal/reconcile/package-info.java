/**
 * Implementation: reconciliation of the directory with the rows found on the shards.
 */
@NullMarked
package io.github.shardtenancy.internal.reconcile;

import org.jspecify.annotations.NullMarked;
