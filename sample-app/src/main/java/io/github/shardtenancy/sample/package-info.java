/**
 * The sample orders application: a Spring Boot application on the starter.
 */
@NullMarked
package io.github.shardtenancy.sample;

import org.jspecify.annotations.NullMarked;
