/**
 * Implementation: the instance heartbeat (the directory version each instance has applied, recorded in the directory
 * database) and the version-skew report read from it.
 */
@NullMarked
package io.github.shardtenancy.internal.instances;

import org.jspecify.annotations.NullMarked;
