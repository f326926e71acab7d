/**
 * The demo run ({@code --demo}): writers and a mover at once, then a check of every shard.
 */
@NullMarked
package io.github.shardtenancy.sample.demo;

import org.jspecify.annotations.NullMarked;
