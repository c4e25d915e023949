#!/usr/bin/env bash
# cpu_bench.sh BEFORE AFTER GAME... : random playouts per CPU second of two builds of ggp
# on each game, alternating, for docs/engine.md's tables ("Compiled code for big
# networks"). On a machine other sessions share, wall-clock figures swing by 2x; CPU time
# does less. Per game: `ggp bench --seconds 0.2` on both builds first (so that the
# compiled code is cached and no run counts cc's time), then for the ground network of
# AFTER and the compiled code of BEFORE and AFTER (twice each, alternating)
# `perf stat -e task-clock ggp bench GAME --seconds S --engine E` with S = S1 and S2, the
# figure being (playouts at S2 - playouts at S1) / (task-clock at S2 - task-clock at S1):
# loading and grounding cancel out.
#
# Environment: S1, S2 (default 1 and 5). Prints one line per game:
#   GAME ground=X before=Y1,Y2 after=Z1,Z2
# and the load average before and after. Needs perf.
#
# With MATCH=KIND (e.g. MATCH=mcts:abdepth=9), fixed work instead of playouts: per game one
# match of KIND against itself (`ggp match --seed 1` with a play clock of 600 s that a
# depth-bounded search does not reach, so that every run searches the same tree) by BEFORE
# and AFTER, alternating, REPEAT times (default 3), each timed by perf's task-clock; per
# game the median CPU seconds of each build, their ratio (before / after: > 1 is faster),
# and the alpha-beta nodes each searched (the sum of the players' ab_nodes: equal when the
# work is):
#   GAME before=X after=Y ratio=R nodes=N1,N2
set -u
if [ $# -lt 3 ]; then
    echo "usage: scripts/cpu_bench.sh BEFORE AFTER GAME..." >&2
    exit 2
fi
BEFORE=$1 AFTER=$2
shift 2
S1=${S1:-1} S2=${S2:-5}

# run GGP GAME ENGINE SECONDS: "task-clock-ms playouts"
run() {
    local out
    out=$(perf stat -x, -e task-clock "$1" bench "$2" --seconds "$4" --engine "$3" 2>&1)
    echo "$(echo "$out" | grep task-clock | cut -d, -f1) $(echo "$out" |
        grep -o '[0-9]* playouts in' | cut -d' ' -f1)"
}

# per_cpu GGP GAME ENGINE: playouts per CPU second from the two runs
per_cpu() {
    local a b
    a=$(run "$1" "$2" "$3" "$S1")
    b=$(run "$1" "$2" "$3" "$S2")
    echo "$a $b" | awk '{ if ($3 - $1 > 0) printf "%.0f\n", ($4 - $2) / (($3 - $1) / 1000); else print "?" }'
}

# match_run GGP GAME: "cpu-seconds ab-nodes" of one fixed-work match of MATCH
match_run() {
    local out
    out=$(perf stat -x, -e task-clock "$1" match "$2" --players "$MATCH,$MATCH" --seed 1 \
        --startclock 5 --playclock 600 2>&1)
    echo "$(echo "$out" | grep task-clock | cut -d, -f1) $(echo "$out" |
        grep -o 'ab_nodes=[0-9]*' | cut -d= -f2 | awk '{ n += $1 } END { print n + 0 }')"
}

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# match_bench GAME: the MATCH line of one game
match_bench() {
    local b="" a="" nb na out
    for _ in $(seq 1 "${REPEAT:-3}"); do
        read -r out nb <<<"$(match_run "$BEFORE" "$1")" && b="$b $out"
        read -r out na <<<"$(match_run "$AFTER" "$1")" && a="$a $out"
    done
    b=$(echo "$b" | tr ' ' '\n' | grep . | median) a=$(echo "$a" | tr ' ' '\n' | grep . | median)
    awk -v g="$(basename "$1")" -v b="$b" -v a="$a" -v nb="$nb" -v na="$na" \
        'BEGIN { printf "%s before=%.3f after=%.3f ratio=%.3f nodes=%s,%s\n", g, b / 1000, a / 1000, b / a, nb, na }'
}

echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
for game in "$@"; do
    if [ -n "${MATCH:-}" ]; then
        "$BEFORE" bench "$game" --seconds 0.2 --engine compiled >/dev/null 2>&1
        "$AFTER" bench "$game" --seconds 0.2 --engine compiled >/dev/null 2>&1
        match_bench "$game"
        continue
    fi
    "$BEFORE" bench "$game" --seconds 0.2 --engine compiled >/dev/null 2>&1
    "$AFTER" bench "$game" --seconds 0.2 --engine compiled >/dev/null 2>&1
    g=$(per_cpu "$AFTER" "$game" ground)
    b1=$(per_cpu "$BEFORE" "$game" compiled)
    a1=$(per_cpu "$AFTER" "$game" compiled)
    b2=$(per_cpu "$BEFORE" "$game" compiled)
    a2=$(per_cpu "$AFTER" "$game" compiled)
    echo "$(basename "$game") ground=$g before=$b1,$b2 after=$a1,$a2"
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
