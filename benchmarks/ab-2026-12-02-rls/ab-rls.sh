#!/usr/bin/env bash
# Alternating A/B in one session: the PostgreSQL routing figure (write-only workload) with row-level security on
# (--row-level-security, the new default) and off (--no-row-level-security), the order alternating per round.
set -u
rounds="$1"
cd /tmp/bench-rls/benchmarks
cp="target/classes:$(cat /tmp/bench-rls/cp.txt)"
log=/tmp/bench-rls/out/log
for round in $(seq 1 $rounds); do
  order="on off"; [ $((round % 2)) -eq 0 ] && order="off on"
  for side in $order; do
    flag=--row-level-security; [ $side = off ] && flag=--no-row-level-security
    out=/tmp/bench-rls/out/rls-$side-$round.md
    echo "$(date -u +%H:%M:%S) $side round $round load $(cut -d' ' -f1-3 /proc/loadavg)" >> $log
    java -Xmx3g -cp "$cp" io.github.shardtenancy.benchmarks.BenchmarkHarness --full --only pg $flag --out $out \
      > /tmp/bench-rls/out/rls-$side-$round.log 2>&1
    echo "$(date -u +%H:%M:%S) done rc=$? load $(cut -d' ' -f1-3 /proc/loadavg)" >> $log
  done
done
echo "$(date -u +%H:%M:%S) all done" >> $log
