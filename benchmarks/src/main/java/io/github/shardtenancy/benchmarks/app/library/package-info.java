/**
 * The benchmark application wired with the library.
 */
@NullMarked
package io.github.shardtenancy.benchmarks.app.library;

import org.jspecify.annotations.NullMarked;
