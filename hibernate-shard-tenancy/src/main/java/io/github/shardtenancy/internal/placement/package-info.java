/**
 * Implementation: placement policies shipped with the library and the slot map.
 */
@NullMarked
package io.github.shardtenancy.internal.placement;

import org.jspecify.annotations.NullMarked;
