/**
 * Implementation: tenant lifecycle (create with placement, delete, purge, pin, overrides, slot moves, drain) and
 * the directory history.
 */
@NullMarked
package io.github.shardtenancy.internal.lifecycle;

import org.jspecify.annotations.NullMarked;
