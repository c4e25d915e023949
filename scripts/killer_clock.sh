#!/usr/bin/env bash
# killer_clock.sh: the killer game at a short clock with the machine busy (issue 24).
#
# Series of `ggp match` with one busy loop per core beside them (scripts/lib.sh's
# start_load, at the script's own priority): MATCHES matches (default 100) of three
# `deduce` players on games/killer.kif at PLAYCLOCK seconds per move (default 0.5, start
# clock 3), then SMALL_MATCHES (default 100) on games/killer_small.kif at SMALL_PLAYCLOCK
# (default 0.25); `full_mcts` and `full_pimc` are the full game's series for three `mcts`
# and three `pimc` players (MATCHES each). Seats rotate (--swap), the master's seed is SEED (default 1). A player
# must answer every move in time (the master counts a move later than the play clock + 1 s,
# or none, as a timeout) with a legal move: the tables show timeouts, illegal moves and the
# slowest move per player, which must be 0, 0 and below the clock + 1 s.
#
# Writes the tables between <!-- clock:begin --> and <!-- clock:end --> in OUT (default
# docs/killer.md; the block is appended when missing, kept by killer_experiment.sh), with
# the date, the load before each series and the commands; raw outputs in RAW (default
# /tmp/killer_clock; the block shows every series found there, so series run one at a
# time add up). Environment: GGP (build/ggp), PLAYERS (deduce,deduce,deduce; full and
# small only), HOGS (1: the busy loops; 0: none), SERIES ("full small": which to run, of
# full small full_mcts full_pimc). Meant to run alone:
#   flock /tmp/ggp-series.lock nice -n -10 scripts/killer_clock.sh
set -eu
case ${1:-} in -h | --help) sed '1d; /^[^#]/,$d' "$0"; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
. scripts/lib.sh
GGP=$(ensure_ggp "${GGP:-build/ggp}")
MATCHES=${MATCHES:-100}
SMALL_MATCHES=${SMALL_MATCHES:-100}
PLAYCLOCK=${PLAYCLOCK:-0.5}
SMALL_PLAYCLOCK=${SMALL_PLAYCLOCK:-0.25}
STARTCLOCK=${STARTCLOCK:-3}
PLAYERS=${PLAYERS:-deduce,deduce,deduce}
SEED=${SEED:-1}
HOGS=${HOGS:-1}
SERIES=${SERIES:-full small}
RAW=${RAW:-/tmp/killer_clock}
OUT=${OUT:-docs/killer.md}
mkdir -p "$RAW"
trap stop_load EXIT

# series NAME GAME MATCHES CLOCK PLAYERS: runs one series into $RAW/NAME.{out,err,meta}
series() {
    local name=$1 game=$2 n=$3 clock=$4 players=$5
    local cmd=("$GGP" match "$game" --players "$players" --startclock "$STARTCLOCK"
        --playclock "$clock" --matches "$n" --swap --seed "$SEED" --verbose)
    local load t0 rc=0
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    [ "$HOGS" = 1 ] && start_load
    t0=$(date +%s)
    echo "killer_clock: $name: ${cmd[*]}" >&2
    "${cmd[@]}" >"$RAW/$name.out" 2>"$RAW/$name.err" || rc=$?
    stop_load
    {
        echo "load=$load"
        echo "seconds=$(($(date +%s) - t0))"
        echo "exit=$rc"
        echo "clock=$clock"
        echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)"
        echo "hogs=$([ "$HOGS" = 1 ] && nproc || echo 0)"
        echo "command=build/ggp ${cmd[*]:1}"
    } >"$RAW/$name.meta"
}

# table NAME TITLE: the markdown of one series from its raw files
table() {
    local name=$1 title=$2 meta=$RAW/$1.meta
    [ -f "$meta" ] || return 0
    echo "**$title at $(sed -n 's/^clock=//p' "$meta") s** ($(sed -n 's/^hogs=//p' "$meta") busy loops" \
        "beside it, load before $(sed -n 's/^load=//p' "$meta"), after" \
        "$(sed -n 's/^load_after=//p' "$meta"); $(sed -n 's/^seconds=//p' "$meta") s, exit" \
        "$(sed -n 's/^exit=//p' "$meta"))"
    echo
    echo "| player | matches | wins | draws | losses | slowest move ms | timeouts | illegal |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    grep '^player=' "$RAW/$name.out" | sed 's/[a-z_0-9]*=//g' |
        awk '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $5, $6, $7, $8, $9, $10 }'
    echo
    echo "- \`$(sed -n 's/^command=//p' "$meta")\`"
    echo
}

for s in $SERIES; do
    case $s in
    full) series full games/killer.kif "$MATCHES" "$PLAYCLOCK" "$PLAYERS" ;;
    small) series small games/killer_small.kif "$SMALL_MATCHES" "$SMALL_PLAYCLOCK" "$PLAYERS" ;;
    full_mcts) series full_mcts games/killer.kif "$MATCHES" "$PLAYCLOCK" mcts,mcts,mcts ;;
    full_pimc) series full_pimc games/killer.kif "$MATCHES" "$PLAYCLOCK" pimc,pimc,pimc ;;
    *) echo "unknown series '$s' (full, small, full_mcts, full_pimc)" >&2; exit 2 ;;
    esac
done

block=$(mktemp)
{
    echo "<!-- clock:begin -->"
    echo "## At a short clock, the machine busy"
    echo
    echo "Written by \`scripts/killer_clock.sh\` ($(date -u +%Y-%m-%d)) on $(nproc) cores: every"
    echo "move in time (the master's limit is the play clock + 1 s) and legal, whatever the"
    echo "clock; a timeout is also a turn answered with no move (since 77ef1aa a player that"
    echo "proves nothing legal in time sends the move legal by construction, player/fallback.h)."
    echo
    table full "games/killer.kif, three deduce players"
    table small "games/killer_small.kif, three deduce players"
    table full_mcts "games/killer.kif, three mcts players"
    table full_pimc "games/killer.kif, three pimc players"
    echo "<!-- clock:end -->"
} >"$block"
if grep -q '<!-- clock:begin -->' "$OUT" 2>/dev/null; then
    awk -v f="$block" '/<!-- clock:begin -->/ { while ((getline l < f) > 0) print l; skip = 1 }
        !skip { print } /<!-- clock:end -->/ { skip = 0 }' "$OUT" >"$OUT.tmp" && mv "$OUT.tmp" "$OUT"
else
    { echo; cat "$block"; } >>"$OUT"
fi
rm -f "$block"
cat "$RAW"/*.out >&2
