/**
 * The tenant across threads in Spring executors and schedulers:
 * {@link io.github.shardtenancy.boot.task.TenantTaskDecorator}.
 */
@NullMarked
package io.github.shardtenancy.boot.task;

import org.jspecify.annotations.NullMarked;
