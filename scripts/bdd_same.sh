#!/usr/bin/env bash
# bdd_same.sh: untimed check of issue 27 point 4 (no series lock needed; nice 19). Where the
# probe gives up at start (connect four: too many states) and no end game is tried (a 2 s
# play clock: solve_late's 0.4 of it is under BDD_LATE_MIN), `mcts+lbs:bdd=on` must play
# what `mcts` plays at equal iterations and seeds, from either seat: each seed's moves of
# `mcts` against itself, then with `bdd=on` first, then second, compared. Exit 1 on a
# difference. Usage: scripts/bdd_same.sh [SEEDS (default 6)] [ITERS (default 1500)]
# (A 0.5 s play clock is no check: 1500 iterations may be cut by it under load, and `mcts`
# against itself then differs too; a clock of 2.5 s or more lets bdd=on try the end game.)
set -u
cd "$(dirname "$0")/.."
N=${1:-6} IT=${2:-1500}
GGP=${GGP:-build/ggp}
GAME=${GAME:-../shared/gdl-corpus/connectFour.kif}
M="mcts:iters=$IT:ponder=off:threads=1"
B="mcts+lbs:bdd=on:iters=$IT:ponder=off:threads=1"
moves() { nice -n 19 "$GGP" match "$GAME" --players "$1" --startclock 5 --playclock 2 \
    --seed "$2" --trace 2>/dev/null | grep '^does' | md5sum | cut -c1-12; }
bad=0
for seed in $(seq 1 "$N"); do
    a=$(moves "$M,$M" "$seed") b=$(moves "$B,$M" "$seed") c=$(moves "$M,$B" "$seed")
    echo "seed $seed: mcts,mcts $a  bdd=on,mcts $b  mcts,bdd=on $c"
    [ "$a" = "$b" ] && [ "$a" = "$c" ] || bad=1
done
[ "$bad" = 0 ] && echo "same moves in every match" || echo "DIFFERENT moves"
exit "$bad"
