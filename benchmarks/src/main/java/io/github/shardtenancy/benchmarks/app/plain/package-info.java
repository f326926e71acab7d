/**
 * The benchmark application without the library (plain Spring Data JPA), the baseline of the comparisons.
 */
@NullMarked
package io.github.shardtenancy.benchmarks.app.plain;

import org.jspecify.annotations.NullMarked;
