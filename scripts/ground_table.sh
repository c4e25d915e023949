#!/usr/bin/env bash
# ground_table.sh [GGP] [GAME_OR_DIR...]: grounding time, memory and network size per game.
#
# For every game (default: every .kif/.gdl of ../shared/gdl-corpus), `GGP ground GAME` runs
# once, one game at a time. The grounder's own limit is wall-clock time, which on a loaded
# machine is not the time it had: it gets WALL seconds (default 60, GGP_GROUND_SECONDS) and
# the verdict is on the process's CPU seconds against LIMIT (default 10): "ok" when it grounded
# within LIMIT CPU seconds, "slow" when it grounded in more. Per game one row: the verdict
# (or why it did not ground), the grounder's wall seconds, the process's CPU seconds and peak
# resident memory (GNU time), the network's sizes as `ggp ground` prints them and the
# grounder's work (join steps, the count the test suite limits: GGP_GROUND_WORK). Then a
# summary: how many grounded within LIMIT CPU seconds, the median and worst, those that did
# not. Environment: LIMIT, WALL, OUT (also write the table there), JOBS (games at once,
# default 1).
set -u
case ${1:-} in -h | --help) sed '1d; /^[^#]/,$d' "$0"; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
. scripts/lib.sh
GGP=${1:-build/ggp}
[ $# -gt 0 ] && shift
GGP=$(ensure_ggp "$GGP") || exit 1
GGP=$(realpath "$GGP")
[ $# -eq 0 ] && set -- ../shared/gdl-corpus
LIMIT=${LIMIT:-10}
WALL=${WALL:-60}
export GGP_GROUND_SECONDS=$WALL
JOBS=${JOBS:-1}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

one() { # one GAME: prints its row
    local game=$1 name out rc t cpu rss status
    name=$(basename "$game")
    name=${name%.*}
    out=$(/usr/bin/time -f "TIME %U %M" timeout -k 5 $((2 * ${WALL%.*} + 20)) \
        "$GGP" ground "$game" 2>&1)
    rc=$?
    t=$(echo "$out" | awk '/^TIME / { print $2, $3 }')
    cpu=${t% *} rss=${t#* }
    rss=$(awk -v k="${rss:-0}" 'BEGIN { printf "%.0f", k / 1024 }')
    if [ $rc -eq 0 ]; then
        echo "$out" | awk -v n="$name" -v cpu="$cpu" -v rss="$rss" -v lim="$LIMIT" '
            /^nodes=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                        printf "| %s | %s | %.3f | %s | %s | %s | %s | %s | %s | %s | %s |\n", n,
                               cpu + 0 <= lim + 0 ? "ok" : "slow",
                               v["seconds"], cpu, rss, v["nodes"], v["fluents"], v["moves"],
                               v["rules"], v["literals"], v["work"] }'
    else
        status=$(echo "$out" | grep -m1 "does not ground" | sed 's/.*does not ground: //')
        [ -z "$status" ] && [ $rc -ge 124 ] && status="killed (exit $rc)"
        [ -z "$status" ] && status="error: $(echo "$out" | grep -v '^TIME' | head -1 | cut -c1-60)"
        echo "| $name | $status | | $cpu | $rss | | | | | | |"
    fi
}
export -f one
export GGP LIMIT WALL

game_files "$@" >"$tmp/list"

{
    echo "ground table: $(basename "$GGP") at $(git rev-parse --short HEAD 2>/dev/null), limit ${LIMIT} s CPU (${WALL} s wall), load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo "| game | grounded | seconds | cpu s | peak MB | nodes | fluents | moves | rules | literals | work |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    tr '\n' '\0' <"$tmp/list" | xargs -0 -P "$JOBS" -I{} bash -c 'one "$1"' _ {} | sort -f
} >"$tmp/table"
rows() { awk -F' *\\| *' '/^\| / && $3 != "grounded" && $3 !~ /^-/' "$tmp/table"; }
n=$(rows | wc -l)
ok=$(rows | awk -F' *\\| *' '$3 == "ok"' | wc -l)
secs=$(rows | awk -F' *\\| *' '$3 == "ok" { print $5, $2 }' | sort -n)
{
    echo
    printf "%d games, %d ground within %s CPU seconds, %d do not; CPU seconds median %s, worst %s\n" \
        "$n" "$ok" "$LIMIT" $((n - ok)) "$(echo "$secs" | awk -v k=$(((ok + 1) / 2)) 'NR == k { print $1 }')" \
        "$(echo "$secs" | tail -1)"
    echo "do not ground:$(rows | awk -F' *\\| *' '$3 != "ok" { printf " %s (%s%s)", $2, $3, $3 == "slow" ? " " $5 " s" : "" }')"
} >>"$tmp/table"
cat "$tmp/table"
[ -n "${OUT:-}" ] && cp "$tmp/table" "$OUT"
exit 0
