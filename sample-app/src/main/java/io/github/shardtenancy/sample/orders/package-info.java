/**
 * The orders domain: entities, repositories and the service.
 */
@NullMarked
package io.github.shardtenancy.sample.orders;

import org.jspecify.annotations.NullMarked;
