#!/bin/bash
for i in 1 2 3; do
  for side in base branch; do
    if [ $side = base ]; then d=/work/wt-h2-base; else d=/work/wt-h2; fi
    echo "== $side $i $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> /tmp/h2jfr/ab.log
    (cd $d && ./mvnw -q -B -o -pl benchmarks -am -Pbench -DskipTests verify -Dbench.args="--full --only h2,h2-hot --out /tmp/h2jfr/ab-$side-$i.md" > /tmp/h2jfr/ab-$side-$i.log 2>&1)
    echo "rc=$? $(date -u +%T)" >> /tmp/h2jfr/ab.log
  done
done
echo ALLDONE >> /tmp/h2jfr/ab.log
