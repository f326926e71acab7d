package io.github.shardtenancy.sample.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import io.github.shardtenancy.MoveResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Shared state of one demo run: what writers and mover saw. Every field is thread-safe. */
final class RunRecord {

	private static final Logger log = LoggerFactory.getLogger(RunRecord.class);

	final List<String> tenants;

	final List<String> shards;

	final Map<String, UUID> customers;

	final Map<String, Set<UUID>> committed = new ConcurrentHashMap<>();

	final LongAdder attempted = new LongAdder();

	final LongAdder committedCalls = new LongAdder();

	final LongAdder bodyRuns = new LongAdder();

	final LongAdder untypedFailures = new LongAdder();

	final LongAdder moverUntypedFailures = new LongAdder();

	final LongAdder staleRetriedToSuccess = new LongAdder();

	final Map<String, LongAdder> typedFailures = new ConcurrentHashMap<>();

	final List<String> untypedExamples = Collections.synchronizedList(new ArrayList<>());

	final Map<Integer, LongAdder> histogram = new ConcurrentSkipListMap<>();

	final List<MoveResult> moves = Collections.synchronizedList(new ArrayList<>());

	final List<String> moveFailures = Collections.synchronizedList(new ArrayList<>());

	/** Per move (same order as {@link #moves}): its steps and the time each took. */
	final List<String> moveSteps = Collections.synchronizedList(new ArrayList<>());

	final AtomicReference<CallTrace> narrated = new AtomicReference<>();

	RunRecord(List<String> tenants, List<String> shards, Map<String, UUID> customers) {
		this.tenants = tenants;
		this.shards = shards;
		this.customers = Map.copyOf(customers);
		tenants.forEach(t -> this.committed.put(t, ConcurrentHashMap.newKeySet()));
	}

	void untyped(LongAdder counter, String where, Throwable ex) {
		counter.increment();
		if (this.untypedExamples.size() < 5) {
			this.untypedExamples.add(where + ": " + ex);
		}
		log.error("Untyped failure in {}", where, ex);
	}

	/** Sleeps for the pause (none if zero); an interrupt ends the pause and stays set. */
	static void pause(Duration pause) {
		if (pause.isZero()) {
			return;
		}
		try {
			Thread.sleep(pause.toMillis(), (int) (pause.toNanos() % 1_000_000));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
