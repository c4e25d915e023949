#!/usr/bin/env bash
# engine_race.sh [GGP] GAME... : auto's race of the ground network against the interpreter
# (engine/race.c), for docs/engine.md ("auto's race"). Per game, on a fresh cache:
#   `ggp bench GAME --engine E --seconds S` for E = auto (the first load grounds and races,
#   the later ones read the verdict), interp and ground, S = S1 and S2 (default 5 and 20),
#   under /usr/bin/time; playouts per CPU second = (playouts at S2 - at S1) / (CPU s at
#   S2 - at S1),
#   so that grounding and the race drop out. FORCED=1 instead forces the race on every
#   network (GGP_COMPILE_MAX_LITS=1) and prints the engine line of one short run per game.
# GGP_GROUND_SECONDS defaults to 60 here: under load a 10 s wall-clock limit falls back
# before a big game grounds. Prints one line per game and engine, and the load average.
set -u
cd "$(dirname "$0")/.." || exit 1
. scripts/lib.sh
GGP=build/ggp
[ $# -gt 0 ] && [ -x "$1" ] && ! [ -d "$1" ] && GGP=$1 && shift
GGP=$(ensure_ggp "$GGP") || exit 1
export GGP_GROUND_SECONDS=${GGP_GROUND_SECONDS:-60} GGP_CACHE=$(mktemp -d)
trap 'rm -rf "$GGP_CACHE"' EXIT

# run GAME ENGINE SECONDS: "playouts cpu engine-line"
run() {
    local out
    out=$({ /usr/bin/time -f 'cpu %U %S' "$GGP" bench "$1" --engine "$2" --seconds "$3"; } 2>&1)
    echo "$(echo "$out" | sed -n 's/.*: \([0-9]*\) playouts in.*/\1/p')" \
        "$(echo "$out" | awk '/^cpu /{print $2 + $3}')" \
        "$(echo "$out" | grep -m1 '^engine:' | sed 's/^engine: [^ ]*: //')"
}

S1=${S1:-5} S2=${S2:-20}
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
for game in "$@"; do
    name=$(basename "$game")
    if [ "${FORCED:-0}" = 1 ]; then
        echo "$name forced: $(GGP_COMPILE_MAX_LITS=1 run "$game" auto 0.5 | cut -d' ' -f3-)"
        continue
    fi
    first=$(run "$game" auto "$S1")
    echo "$name auto first load: ${first%% *} playouts in $S1 s, $(echo "$first" | cut -d' ' -f2) CPU s: $(echo "$first" | cut -d' ' -f3-)"
    for e in auto interp ground; do
        a=$(run "$game" "$e" "$S1" | cut -d' ' -f1-2) b=$(run "$game" "$e" "$S2" | cut -d' ' -f1-2)
        echo "$name $e $(echo "$a $b" | awk '{ printf "%d playouts in %.2f CPU s, %d in %.2f: %.2f per CPU s", $1, $2, $3, $4, ($4 - $2 > 0) ? ($3 - $1) / ($4 - $2) : 0 }')"
    done
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
