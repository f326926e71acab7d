package io.github.shardtenancy.sample.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.retry.FenceRejection;

/**
 * What the retry listener saw of one writer call: each failed attempt, the router's entry for the tenant just before
 * the first retry and just after the successful attempt. Confined to the writer's thread.
 */
final class CallTrace {

	/** One failed attempt: its number (from 1), the exception type Spring raised, and the fence rejection in it. */
	record Failure(int attempt, String surfacedAs, FenceRejection rejection, String message) {
	}

	final String tenantId;

	final List<Failure> failures = new ArrayList<>();

	int executions;

	int retries;

	Optional<DirectoryEntry> cachedBeforeFirstRetry;

	DirectoryEntry cachedAtSuccess;

	UUID committedId;

	CallTrace(String tenantId) {
		this.tenantId = tenantId;
	}

	/** @return the first fence rejection of a stale route (MOVED, STALE or NOT_OWNED), if any */
	Optional<Failure> firstStaleRejection() {
		return this.failures.stream()
			.filter(f -> f.rejection() != null && OrdersDemo.STALE_REASONS.contains(f.rejection().reason()))
			.findFirst();
	}

}
