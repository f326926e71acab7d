/**
 * The benchmark application's entities, the same on both sides of a comparison.
 */
@NullMarked
package io.github.shardtenancy.benchmarks.app.domain;

import org.jspecify.annotations.NullMarked;
