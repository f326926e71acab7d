#!/usr/bin/env bash
cd /work/bench-s9
while pgrep -f run-all.sh > /dev/null; do sleep 5; done
for side in new old; do
  dir=/work/wt-old; [ $side = new ] && dir=/work/bench-new
  echo "$(date +%H:%M:%S) move $side round 2 load $(cut -d' ' -f1 /proc/loadavg)" >> log
  (cd $dir && ./mvnw -q -B -o -pl benchmarks -am -Pbench -DskipTests verify -Dbench.args="--full --only move --out /work/bench-s9/move-$side-2.md" > move-$side-2.log 2>&1)
  echo "$(date +%H:%M:%S) done rc=$?" >> log
done
echo "$(date +%H:%M:%S) move2 done" >> log
