#!/usr/bin/env bash
# Alternating A/B in one session: the PostgreSQL routing figure (write-only workload, row-level security on, the
# default), main (old) against the seal (new), the same harness classes, the order alternating per round.
# /tmp/ab/old/<module> and /tmp/ab/new/<module>: target/classes of benchmarks, hibernate-shard-tenancy, liquibase,
# postgresql, spring-autoconfigure and h2, built from main (5f7fe41) and from the change; /tmp/ab/ext.txt: the
# benchmarks module's runtime class path without the project's own artifacts (dependency:build-classpath).
set -u
rounds="$1"
cd /tmp/ab
log=/tmp/ab/out/log
for round in $(seq 1 $rounds); do
  order="old new"; [ $((round % 2)) -eq 0 ] && order="new old"
  for side in $order; do
    cp="$side/benchmarks:$side/hibernate-shard-tenancy:$side/liquibase:$side/postgresql:$side/spring-autoconfigure:$side/h2:$(cat ext.txt)"
    out=/tmp/ab/out/$side-$round.md
    echo "$(date -u +%H:%M:%S) $side round $round load $(cut -d' ' -f1-3 /proc/loadavg)" >> $log
    (cd /work/main/benchmarks && java -Xmx3g -cp "$(echo $cp | sed "s#\(^\|:\)\(old\|new\)/#\1/tmp/ab/\2/#g")" io.github.shardtenancy.benchmarks.BenchmarkHarness --full --only pg --out $out) \
      > /tmp/ab/out/$side-$round.log 2>&1
    echo "$(date -u +%H:%M:%S) done rc=$? load $(cut -d' ' -f1-3 /proc/loadavg)" >> $log
  done
done
echo "$(date -u +%H:%M:%S) all done" >> $log
