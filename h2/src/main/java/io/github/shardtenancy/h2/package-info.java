/**
 * The H2 dialect: the shard fence, change capture and upsert of an H2 shard, with the Java functions and triggers
 * the shard changelog installs inside H2. Found with {@link java.util.ServiceLoader}; applications do not use it
 * directly.
 */
@NullMarked
package io.github.shardtenancy.h2;

import org.jspecify.annotations.NullMarked;
