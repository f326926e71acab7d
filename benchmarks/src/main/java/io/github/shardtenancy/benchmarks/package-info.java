/**
 * The benchmarks and figures of the library (see docs/performance.md). They measure the implementation and may use
 * its internal types.
 */
@NullMarked
package io.github.shardtenancy.benchmarks;

import org.jspecify.annotations.NullMarked;
