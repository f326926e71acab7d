package io.github.shardtenancy.benchmarks;

import java.time.Duration;

/**
 * How long and how big a run is: {@link #full()} for the figures, {@link #smoke()} for the test that keeps the
 * harness compiling and running (seconds, tiny sizes, numbers meaningless).
 *
 * @param quick whether this is the smoke run (tiny sizes)
 * @param warmup warm-up time per side before the measured rounds of the first workload of a throughput figure (later
 * workloads of the same applications warm up half as long)
 * @param round measured time per side and round (and of each run of a counting pass, at least 1.2 s)
 * @param rounds measured rounds per side and workload (baseline and library alternate)
 * @param threads worker threads of the throughput figures
 * @param tenantsPerThread tenants each worker cycles through (one order each)
 * @param invalidationEvents directory changes timed for the invalidation figure
 * @param directoryEntries entries of the memory and cold-start figure
 * @param forkMemoryProbe whether the memory probe runs in a forked JVM (a clean heap)
 * @param jmhForks JMH forks (0 runs in this JVM)
 * @param jmhIterations JMH warm-up and measurement iterations each
 * @param jmhIterationTime JMH iteration time
 */
public record Sizes(boolean quick, Duration warmup, Duration round, int rounds, int threads, int tenantsPerThread,
		int invalidationEvents, int directoryEntries, boolean forkMemoryProbe, int jmhForks, int jmhIterations,
		Duration jmhIterationTime) {

	/** @return the full run: about 6 minutes in all (three workloads on H2 and on PostgreSQL, 8 rounds of 1.5 s) */
	public static Sizes full() {
		return new Sizes(false, Duration.ofSeconds(5), Duration.ofMillis(1500), 8, 4, 8, 300, 1_000_000, true, 1, 5,
				Duration.ofSeconds(1));
	}

	/** @return the smoke run: seconds, tiny sizes */
	public static Sizes smoke() {
		return new Sizes(true, Duration.ofMillis(300), Duration.ofMillis(300), 1, 4, 2, 5, 2_000, false, 0, 1,
				Duration.ofMillis(100));
	}

}
