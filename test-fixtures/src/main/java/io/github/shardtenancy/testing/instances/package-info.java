/** The instance heartbeat's contract, run by each database module's tests on its own directory database. */
@NullMarked
package io.github.shardtenancy.testing.instances;

import org.jspecify.annotations.NullMarked;
