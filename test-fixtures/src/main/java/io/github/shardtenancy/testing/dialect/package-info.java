/**
 * The fence contract every dialect module runs: {@link io.github.shardtenancy.testing.dialect.DialectContractTests}.
 */
@NullMarked
package io.github.shardtenancy.testing.dialect;

import org.jspecify.annotations.NullMarked;
