/**
 * Implementation: reads and writes of the directory database (entries, the global directory version, history).
 */
@NullMarked
package io.github.shardtenancy.internal.directory;

import org.jspecify.annotations.NullMarked;
