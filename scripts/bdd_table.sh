#!/usr/bin/env bash
# bdd_table.sh [GGP]: how deep symbolic backward search (ggp regress --bdd) gets per game
# within its budget, written as a table into docs/bdd.md (between the table markers; the
# rest of the file is prose) and printed.
#
# For each game and role, `ggp regress GAME --role R --bdd --budget B --hits N` computes
# α_0, β_0, α_1, ... on decision diagrams until the budget, the fixpoint of both sides, or
# a step that does not finish; the table gives per game the network's size and time, the
# reachable states' search, the deepest complete α_i and β_i (fixpoint: every forced win is
# in them), their nodes, the CPU seconds of the whole run (the machine is shared: wall
# seconds are stretched by the other jobs, CPU seconds are what one core spent), and the
# share of the states of N random matches in the deepest sets (how often a rollout would
# stop there). Then the same per step for the games of SUMMARY_ONLY unset.
# Environment: BUDGET (default 10), MATCHES (default 100), EXTRA (more options of ggp regress,
# e.g. "--set-nodes 300000"), GAMES (specs game:role[:file],
# default below), OUT (default docs/bdd.md), MARK (the table's markers in OUT, <!-- MARK:begin -->
# and <!-- MARK:end -->, default table: a second table, e.g. with EXTRA="--horizon 10
# --columns", goes between its own).
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
GGP=$(ensure_ggp "${1:-build/ggp}") || exit 1
BUDGET=${BUDGET:-10}
MATCHES=${MATCHES:-100}
OUT=${OUT:-docs/bdd.md}
MARK=${MARK:-table}
C=${CORPUS:-../shared/gdl-corpus}
GAMES=${GAMES:-"tictactoe:xplayer nim:0 connect3_4x4:0 lightsout:0 simultaneous:0 three_player:0
breakthrough:white connect4:red connectFour:0:$C/connectFour.kif
breakthroughSmallHoles:0:$C/breakthroughSmallHoles.kif hex5:0"}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "no commit")
[ -n "$(git status --porcelain -- regress logic 2>/dev/null)" ] && commit="$commit + local changes"
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
rows="" steps=""
for spec in $GAMES; do
    IFS=: read -r game role file <<<"$spec"
    [ -n "$file" ] || file=games/$game.kif
    echo "bdd_table: $game (budget $BUDGET s)..." >&2
    set +e
    /usr/bin/time -f "%U %e" -o "$tmp/$game.time" "$GGP" regress "$file" --role "$role" --bdd \
        --budget "$BUDGET" --hits "$MATCHES" ${EXTRA:-} >"$tmp/$game.out" 2>"$tmp/$game.err"
    rc=$?
    set -e
    read -r cpu wall < <(tail -1 "$tmp/$game.time" 2>/dev/null) || cpu=? wall=?
    if [ "$rc" -ne 0 ]; then
        why=$(sed -n 's/.*unsupported by symbolic backward search: //p' "$tmp/$game.err" | head -1)
        rows+="| $game | – | – | – | – | – | – | – | $cpu | refused: ${why:-exit $rc} |"$'\n'
        continue
    fi
    rows+=$(awk -v game="$game" -v cpu="$cpu" '
        function kv(line, arr,   k, n, f, p) {
            n = split(line, f, " ")
            for (k = 1; k <= n; k++) { p = index(f[k], "="); if (p) arr[substr(f[k], 1, p - 1)] = substr(f[k], p + 1) }
        }
        /^# bdd mode=/ { kv($0, h) }
        /^side=(alpha|beta) / { delete v; kv($0, v); s = v["side"]
            if (v["complete"] == "yes") { last[s] = v["i"]; nodes[s] = v["nodes"]; fix[s] = v["fixpoint"]; wi[s] = v["within"] } }
        /^hits side=(alpha|beta) / { delete v; kv($0, v); share[v["side"] " " v["i"]] = v["share"] }
        END {
            reach = h["reach_layers"] > 0 ? h["reach_layers"] " layers, " h["reach_nodes"] " nodes" : "no (given up or off)"
            for (s in last) d[s] = last[s] (fix[s] == "yes" ? " (fixpoint)" : "") (wi[s] != "" ? " (within " wi[s] ")" : "")
            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s %s |\n", game, h["fluents"], h["implications"], h["network_seconds"], reach,
                d["alpha"], nodes["alpha"], d["beta"], cpu, share["alpha " last["alpha"]], share["beta " last["beta"]]
        }' "$tmp/$game.out")$'\n'
    steps+=$(awk -v game="$game" '
        function kv(line, arr,   k, n, f, p) {
            n = split(line, f, " ")
            for (k = 1; k <= n; k++) { p = index(f[k], "="); if (p) arr[substr(f[k], 1, p - 1)] = substr(f[k], p + 1) }
        }
        /^side=(alpha|beta) / { delete v; kv($0, v)
            w = "within" in v ? v["within"] : "all"
            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", game, v["side"], v["i"], v["cpu"], v["seconds"], v["nodes"], v["fixpoint"], v["complete"], w }' "$tmp/$game.out")$'\n'
done

section=$(mktemp)
{
    echo "<!-- $MARK:begin -->"
    echo "Made by \`scripts/bdd_table.sh\` on $(date -u +%Y-%m-%d), commit $commit, $(nproc) cores,"
    echo "load average at the start $load (shared: wall seconds are stretched, CPU seconds are one"
    echo "core's). Budget $BUDGET s per game and role (wall clock, network included), options beyond the"
    echo "defaults: ${EXTRA:-none} (defaults: image per joint move split by effect, sets as unions of parts, move codes on top, binary codes,"
    echo "column by column, the implications between cells proven inductive (gravity) in the invariant,"
    echo "reachable states when the forward search ends within 40% of the budget and 20,000 nodes). *α*, *β*: the deepest complete step (fixpoint: no"
    echo "later step adds a state); *share*: of the states of $MATCHES random matches in those sets."
    echo
    echo "| game | fluents | implications | network s | reachable states | α | α nodes | β | CPU s | share α, β |"
    echo "|---|---:|---:|---:|---|---|---:|---|---:|---|"
    printf '%s' "$rows"
    echo
    echo "Per step (CPU and wall seconds of the step, nodes of its diagram; *within*: with a horizon"
    echo "or a start, the step is exact on the states within that many steps of the start):"
    echo
    echo "| game | side | i | CPU s | wall s | nodes | fixpoint | complete | within |"
    echo "|---|---|---:|---:|---:|---:|---|---|---|"
    printf '%s' "$steps"
    echo "<!-- $MARK:end -->"
} >"$section"
replace_section "$OUT" "$MARK" "$section"
rm -f "$section"
sed -n "/<!-- $MARK:begin -->/,/<!-- $MARK:end -->/p" "$OUT"
