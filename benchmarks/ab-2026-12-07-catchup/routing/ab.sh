#!/usr/bin/env bash
# Alternating A/B of the routing figure (--only pg: PostgreSQL write-only, web-like and hot tenant against plain Spring
# Data JPA): main (old) against the change (new), the same harness classes of each
# side, the order alternating per round. Usage: ab.sh ROUNDS; the sides' trees in /tmp/ab/old and /tmp/ab/new, built
# with `./mvnw -o -q package -DskipTests -pl benchmarks -am`; /tmp/ab/ext.txt the benchmarks module's dependency
# class path without the project's own jars.
set -u
rounds="$1"
mkdir -p /tmp/ab/outpg
log=/tmp/ab/outpg/log
for round in $(seq 1 $rounds); do
  order="old new"; [ $((round % 2)) -eq 0 ] && order="new old"
  for side in $order; do
    d=/tmp/ab/$side
    cp="$d/benchmarks/target/classes:$d/hibernate-shard-tenancy/target/classes:$d/liquibase/target/classes:$d/postgresql/target/classes:$d/spring-autoconfigure/target/classes:$d/h2/target/classes:$(cat /tmp/ab/ext.txt)"
    out=/tmp/ab/outpg/$side-$round.md
    echo "$(date -u +%H:%M:%S) $side round $round load $(cut -d' ' -f1-3 /proc/loadavg)" >> $log
    (cd $d/benchmarks && java -Xmx3g -cp "$cp" io.github.shardtenancy.benchmarks.BenchmarkHarness --full --only pg --out $out) \
      > /tmp/ab/outpg/$side-$round.log 2>&1
    echo "$(date -u +%H:%M:%S) done rc=$? load $(cut -d' ' -f1-3 /proc/loadavg)" >> $log
  done
done
echo "$(date -u +%H:%M:%S) all done" >> $log
