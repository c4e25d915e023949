#!/bin/bash
# usage: scripts/bdd_start.sh BEFORE_GGP AFTER_GGP RUNS GAME...: the start's symbolic builds of
# mcts+lbs:bdd=on:iters=200:ponder=off:threads=1 (one match, seed 1, start clock 30 s,
# at nice 19), before and after, alternating: CPU of the builds (bdd_cpu of the player's
# line), the wall ms to the sets without a horizon (verbose), and whether the traces match.
B=$1 A=$2 R=$3; shift 3
K="mcts+lbs:bdd=on:iters=200:ponder=off:threads=1"
T=$(mktemp -d)
for g in "$@"; do
  roles=$(grep -c -i "^ *( *role " "$g"); players=$K; [ "$roles" -ge 2 ] && players="$K,random"
  for r in $(seq 1 "$R"); do
    for w in before after; do
      bin=$B; [ $w = after ] && bin=$A
      nice -n 19 "$bin" match "$g" --players "$players" --startclock 30 --playclock 1 \
        --matches 1 --seed 1 --trace --verbose >"$T/$w.out" 2>"$T/$w.err"
      cpu=$(grep -o "bdd_cpu=[0-9.]*" "$T/$w.out" | cut -d= -f2)
      reused=$(grep -o "bdd_reused=[0-9]*" "$T/$w.out" | cut -d= -f2)
      ms=$(sed -n 's/^bdd: the sets without a horizon in \([0-9]*\) ms.*/\1/p' "$T/$w.err" | head -1)
      probe=$(sed -n 's/^bdd: probe in \([0-9]*\) ms.*/\1/p' "$T/$w.err" | head -1)
      grep -v "^player=\|^lbs player\|^mcts player\|ms\b" "$T/$w.out" | grep "^does\|^step\|^goal" >"$T/$w.moves"
      echo "$(basename "$g" .kif) $w run=$r bdd_cpu=$cpu probe_ms=$probe solve_ms=$ms reused=${reused:--}"
    done
    cmp -s "$T/before.moves" "$T/after.moves" && echo "  moves same ($(grep -c '^does' "$T/after.moves") joint moves)" || echo "  MOVES DIFFER"
  done
done
rm -rf "$T"
