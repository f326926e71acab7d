/**
 * Test helpers shared by the modules' tests (database servers, writers, polling) and the abstract contract tests a
 * dialect module runs. Test scope only; never a dependency of main code.
 */
@NullMarked
package io.github.shardtenancy.testing;

import org.jspecify.annotations.NullMarked;
