#!/usr/bin/env bash
# Alternating A/B: old = 88d2b37 (session start); new = fresh clone of the final main in /work/bench-new.
set -u
only="$1"; rounds="$2"; tag="$3"
for round in $(seq 1 $rounds); do
  order="old new"; [ $((round % 2)) -eq 0 ] && order="new old"
  for side in $order; do
    dir=/work/wt-old; [ $side = new ] && dir=/work/bench-new
    out=/work/bench-s9/$tag-$side-$round.md
    echo "$(date +%H:%M:%S) $tag $side round $round load $(cut -d' ' -f1 /proc/loadavg)" >> /work/bench-s9/log
    (cd $dir && ./mvnw -q -B -o -pl benchmarks -am -Pbench -DskipTests verify -Dbench.args="--full --only $only --out $out" > /work/bench-s9/$tag-$side-$round.log 2>&1)
    echo "$(date +%H:%M:%S) done rc=$?" >> /work/bench-s9/log
  done
done
