#!/bin/bash
# run-05: Sockeye-3-style console, 2 nodes x 2 workers launched elastic (--nnodes 1:2).
# Layout: merged console, "[host] " prefixes (logs/train.log).
# Injected from outside before launch: node 2's /etc/hosts maps the rendezvous host name
# sockeye-node-1 to 192.0.2.77 (no host has that address); node 1's /etc/hosts is correct.
source "$(dirname "$0")/lib9.sh"
C=$B9/run-05; W=$SCR/c05; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W/model
mkhosts $W/hosts sockeye-node-1 sockeye-node-2
sed 's/^127.0.9.11 sockeye-node-1/192.0.2.77 sockeye-node-1/' $W/hosts > $W/hosts.node2
note "node 2 hosts file: $(tr '\n' ';' < $W/hosts.node2)"
for h in sockeye-node-1 sockeye-node-2; do
  hf=$W/hosts; [ $h = sockeye-node-2 ] && hf=$W/hosts.node2
  node $h $hf "--style bracket --out $C/logs/train.log" "cd $SRC" \
    torchrun --nnodes 1:2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint sockeye-node-1:29905 --rdzv-id sockeye-mlp-2 \
      $SRC/sockeye_like.py --prepared-data $SCR/data --output $W/model --max-updates 1500 --dist
  sleep 1
done
note "launched"; wait; sleep 1; note "all agents exited"; ls -l $W/model >> $INJ
