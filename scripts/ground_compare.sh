#!/usr/bin/env bash
# ground_compare.sh OLD NEW [GAME_OR_DIR...]: two grounders on the same games, side by side.
#
# For a change of the grounder that must not change its result (a join strategy, an
# index): per game, `OLD ground GAME --stats` and `NEW ground GAME --stats` (one at a time),
# and a row with the atoms derived, the network's nodes, rules and literals and its digest
# (the same network however its nodes are numbered: cli/cmd_ground.c), "same" when all of
# them agree (or both binaries fail to ground it), "DIFF" when not; then the join steps and
# CPU seconds of each (for a game that does not ground, the steps spent when it gave up).
# Default games: every .kif/.gdl of ../shared/gdl-corpus and games/.
# Limits are counts, not time: GGP_GROUND_WORK (default 200,000,000 join steps) and the
# grounder's atom and literal limits; WALL (default 600) only stops a run that hangs.
# Environment: OUT (also write the table there), JOBS (games at once, default 1).
# Exits 1 when any row differs.
set -u
cd "$(dirname "$0")/.."
. scripts/lib.sh
[ $# -ge 2 ] || {
    echo "usage: $0 OLD NEW [GAME_OR_DIR...]" >&2
    exit 2
}
OLD=$(realpath "$1") NEW=$(realpath "$2")
shift 2
[ $# -eq 0 ] && set -- ../shared/gdl-corpus games
export GGP_GROUND_WORK=${GGP_GROUND_WORK:-200000000}
export GGP_GROUND_SECONDS=0
WALL=${WALL:-600}
JOBS=${JOBS:-1}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # BIN GAME: "atoms nodes rules literals digest work cpu" or "fail WHY - - - work cpu"
    local out
    out=$(/usr/bin/time -f "TIME %U" timeout -k 5 "$WALL" "$1" ground "$2" --stats 2>&1)
    echo "$out" | awk '
        /^ground: instantiate/ { for (i = 1; i <= NF; i++) if ($i ~ /^atoms=/) atoms = substr($i, 7) }
        /^ground: (derive|instantiate) / { for (i = 1; i <= NF; i++) if ($i ~ /^work=/) w = substr($i, 6) }
        /^ground: digest/ { digest = $3 }
        /^nodes=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
        /does not ground/ { sub(/.*does not ground: /, ""); gsub(/ /, "_"); why = $0 }
        /^TIME / { cpu = $2 }
        END {
            if (v["nodes"] != "")
                print atoms, v["nodes"], v["rules"], v["literals"], digest, v["work"], cpu
            else
                print "fail", (why == "" ? "error" : why), "-", "-", "-", (w == "" ? "-" : w), cpu
        }'
}

one() { # GAME: prints its row
    local game=$1 name a b verdict
    name=$(basename "$game")
    name=${name%.*}
    a=($(run "$OLD" "$game"))
    b=($(run "$NEW" "$game"))
    verdict=DIFF
    [ "${a[*]:0:5}" = "${b[*]:0:5}" ] && verdict=same
    [ "${a[0]}" = fail ] && [ "${b[0]}" = fail ] && verdict=same
    echo "| $name | $verdict | ${b[0]} | ${b[1]} | ${b[2]} | ${b[3]} | ${a[5]} | ${b[5]} | ${a[6]} | ${b[6]} |"
    [ $verdict = same ] || echo "DIFF $name old: ${a[*]} new: ${b[*]}" >&2
}
export -f run one
export OLD NEW WALL

game_files "$@" >"$tmp/list"

{
    echo "ground compare: $(basename "$OLD") against $(basename "$NEW") at $(git rev-parse --short HEAD 2>/dev/null), GGP_GROUND_WORK=$GGP_GROUND_WORK, load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo "| game | result | atoms | nodes | rules | literals | steps old | steps new | cpu s old | cpu s new |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    tr '\n' '\0' <"$tmp/list" | xargs -0 -P "$JOBS" -I{} bash -c 'one "$1"' _ {} | sort -f
} >"$tmp/table"
diffs=$(grep -c '| DIFF |' "$tmp/table")
awk -F' *\\| *' '/^\| / && $4 ~ /^[0-9]+$/ && $8 ~ /^[0-9]+$/ && $9 ~ /^[0-9]+$/ {
        o += $8; n += $9; k++ }
    END { printf "\n%d games grounded by both: join steps %d old, %d new (%.2fx)\n", k, o, n, n ? o / n : 0 }' \
    "$tmp/table" >>"$tmp/table"
echo "$diffs games differ" >>"$tmp/table"
cat "$tmp/table"
[ -n "${OUT:-}" ] && cp "$tmp/table" "$OUT"
[ "$diffs" -eq 0 ]
