/**
 * Retry of work rejected by the shard fence, usable without any framework: the classification of a failure
 * ({@link io.github.shardtenancy.retry.FenceRejection}), the budget and backoff
 * ({@link io.github.shardtenancy.retry.RetrySettings}), the decisions of one retried unit of work
 * ({@link io.github.shardtenancy.retry.RetryAttempts}), the rerun-safety record of what committed inside an attempt
 * ({@link io.github.shardtenancy.retry.CommittedWork}), and the runner
 * ({@link io.github.shardtenancy.retry.ShardTenancyRetry}). The Spring Boot module drives the same decisions with
 * Spring's {@code RetryTemplate}.
 */
@NullMarked
package io.github.shardtenancy.retry;

import org.jspecify.annotations.NullMarked;
