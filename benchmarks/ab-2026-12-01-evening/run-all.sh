#!/usr/bin/env bash
# Quiet-machine A/B of the session: routing 2 alternating rounds, then move (old, new), then memory (new).
cd /work/bench-s9
bash ab.sh h2,pg,pg-web,pg-hot 2 routing
bash ab.sh move 1 move
echo "$(date +%H:%M:%S) memory new load $(cut -d' ' -f1 /proc/loadavg)" >> log
(cd /work/bench-new && ./mvnw -q -B -o -pl benchmarks -am -Pbench -DskipTests verify -Dbench.args="--full --only memory --out /work/bench-s9/memory-new-1.md" > /work/bench-s9/memory-new-1.log 2>&1)
echo "$(date +%H:%M:%S) all done" >> log
