#!/usr/bin/env bash
# Alternating A/B: the move figure (PostgreSQL, 100k-row tenant, 8 writers, 10 moves, the composite-key table
# bench_line_item written by every writer), main before the key list (old) against the key list (new), the same
# harness classes, the order alternating per round.
set -u
rounds="$1"
cd /tmp/ab2
log=/tmp/ab2/out/log
for round in $(seq 1 $rounds); do
  order="old new"; [ $((round % 2)) -eq 0 ] && order="new old"
  for side in $order; do
    cp="/tmp/ab2/$side/benchmarks:/tmp/ab2/$side/hibernate-shard-tenancy:/tmp/ab2/$side/liquibase:/tmp/ab2/$side/postgresql:/tmp/ab2/$side/spring-autoconfigure:/tmp/ab2/$side/h2:$(cat ext.txt)"
    out=/tmp/ab2/out/$side-$round.md
    echo "$(date -u +%H:%M:%S) $side round $round load $(cut -d' ' -f1-3 /proc/loadavg)" >> $log
    (cd /work/wt-keys/benchmarks && java -Xmx3g -cp "$cp" io.github.shardtenancy.benchmarks.BenchmarkHarness --full --only move --out $out) \
      > /tmp/ab2/out/$side-$round.log 2>&1
    echo "$(date -u +%H:%M:%S) done rc=$? load $(cut -d' ' -f1-3 /proc/loadavg)" >> $log
  done
done
echo "$(date -u +%H:%M:%S) all done" >> $log
