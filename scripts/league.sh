#!/usr/bin/env bash
# league.sh: how strong is the current build? Series of matches, each appended as one row
# to docs/league.tsv, and docs/league.md made from those rows (issue 25, "The league").
#
# usage: scripts/league.sh COMMAND ARGS...
#   build REV                      builds git revision REV (a release of ours) into
#                                  $LEAGUE_DIR/REV/ggp (once; a scratch copy of the tree)
#   local GAME N START PLAY A B [B2]
#                                  N matches of GAME, seats rotating, played by `ggp match`
#                                  (the game master) against players served over HTTP by
#                                  `ggp serve`: A, B (and B2 in the other seats of a game
#                                  of three roles; a one-role game plays A and B in
#                                  separate matches, N each). A player is KIND (the current
#                                  build) or REV@KIND (the build of REV), KIND any
#                                  `ggp serve --player` kind ("default": none given).
#   sparring GAME N START PLAY A OPP
#                                  N matches against OPP (sancho, SampleMonteCarloGamer)
#                                  through the sparring kit (../shared/sparring/series.sh)
#   table                          writes docs/league.md from docs/league.tsv
# Each series runs under the series lock (flock /tmp/ggp-series.lock, at niceness
# LEAGUE_NICE, default -10), so that no two timed series share the machine; the load
# average before and after is kept in its row. Every `ggp serve` runs in a session of its
# own (setsid): the kernel's scheduler shares a busy core equally between sessions
# (autogroups) but between threads within one, so a player of two threads sharing a core
# with a player of one took two thirds of it (measured 64/36 against Sancho, session 33).
# Settings (environment): LEAGUE_DIR (builds, logs; default /tmp/league), LEAGUE_NOTE (a
# note for the rows), SPARRING (default ../shared/sparring), SPARRING_OUT (/tmp/sparring),
# PORT (first port, default 9481), LEAGUE_VERBOSE=1 (a sparring series' `ggp serve` logs its
# search per turn, --verbose, into the series' serve.log).
set -u
case ${1:-} in -h | --help) sed '1d; /^[^#]/,$d' "$0"; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
ROOT=$(pwd)
LEAGUE_DIR=${LEAGUE_DIR:-/tmp/league}
SPARRING=${SPARRING:-$ROOT/../shared/sparring}
SPARRING_OUT=${SPARRING_OUT:-/tmp/sparring}
CORPUS=${GGP_CORPUS:-$ROOT/../shared/gdl-corpus}
PORT=${PORT:-9481}
TSV=$ROOT/docs/league.tsv
LOCK=/tmp/ggp-series.lock
mkdir -p "$LEAGUE_DIR"

die() {
    echo "league: $*" >&2
    exit 1
}
say() { echo "league: $*" >&2; }
load() { cut -d' ' -f1 /proc/loadavg; }
rev() { git rev-parse --short HEAD 2>/dev/null || echo unknown; }
dirty() { git diff --quiet HEAD 2>/dev/null && echo "" || echo "+"; }

# The current build (build/ggp, Release, brought up to date with the tree: a stale binary
# would measure old code under the row's revision), as a copy taken once per run of this
# script: a rebuild meanwhile does not change the players of a series.
current_ggp() {
    local copy=$LEAGUE_DIR/current.$$/ggp
    if [ ! -x "$copy" ]; then
        { [ -f build/CMakeCache.txt ] || cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null; } &&
            cmake --build build -j2 --target ggp >/dev/null || die "cannot build build/ggp"
        mkdir -p "$(dirname "$copy")" && cp build/ggp "$copy" || die "cannot copy build/ggp"
    fi
    echo "$copy"
}

# build REV: the binary of revision REV, built once in a scratch copy of that tree.
build_rev() {
    local r=$1 dir
    dir=$LEAGUE_DIR/$r
    if [ ! -x "$dir/ggp" ]; then
        say "building $r in $dir"
        rm -rf "$dir/src" && mkdir -p "$dir/src" || die "cannot make $dir"
        git archive "$r" | tar -x -C "$dir/src" || die "no revision $r"
        (cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release >/dev/null &&
            nice cmake --build "$dir/build" -j2 --target ggp >/dev/null) || die "cannot build $r"
        cp "$dir/build/ggp" "$dir/ggp"
    fi
    echo "$dir/ggp"
}

# A player spec KIND or REV@KIND: its binary and its kind.
spec_bin() { case "$1" in *@*) build_rev "${1%%@*}" ;; *) current_ggp ;; esac; }
spec_kind() { echo "${1#*@}"; }

SERVERS=()
stop_servers() {
    local p
    for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${SERVERS[@]}"; do wait "$p" 2>/dev/null; done
    SERVERS=()
}
trap 'stop_servers; rm -rf "$LEAGUE_DIR/current.$$"' EXIT

# serve SPEC PORT LOG: a `ggp serve` for SPEC on PORT, up once it answers INFO.
serve() {
    local bin kind args=()
    bin=$(spec_bin "$1") || exit 1
    kind=$(spec_kind "$1")
    [ "$kind" = default ] || args=(--player "$kind")
    setsid "$bin" serve --port "$2" --bind 127.0.0.1 "${args[@]}" >"$3" 2>&1 &
    SERVERS+=($!)
    local t
    for t in $(seq 1 100); do
        curl -s -m 1 -X POST -H 'Content-Type: text/acl' --data '( info )' \
            "http://127.0.0.1:$2/" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    die "ggp serve for $1 did not come up on port $2 (see $3)"
}

field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }

# row MODE GAME N START PLAY A B W D L MEAN CI ERRORS LOAD0 LOAD1: one line of the table.
row() {
    [ -f "$TSV" ] || printf 'date\trev\tmode\tgame\tn\tstart\tplay\tours\topponent\twins\tdraws\tlosses\tmean\tci95\terrors\tload_before\tload_after\tnote\n' >"$TSV"
    printf '%s\t%s%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
        "$(date -u '+%Y-%m-%d %H:%M')" "$(rev)" "$(dirty)" "$@" "${LEAGUE_NOTE:-}" >>"$TSV"
    say "row: $*"
}

# local GAME N START PLAY A B [B2]
cmd_local() {
    local game=$1 n=$2 sc=$3 pc=$4 a=$5 b=$6 b2=${7:-$6}
    [ -f "$game" ] || game=$CORPUS/$game.kif
    [ -f "$game" ] || die "no game $1"
    local ggp roles name log
    ggp=$(current_ggp)
    roles=$("$ggp" check "$game" 2>/dev/null | sed -n 's/^roles //p' | wc -w)
    [ "$roles" -ge 1 ] || die "$game: not a valid game"
    name=$(basename "$game" .kif)
    log=$LEAGUE_DIR/log.$name.$$
    mkdir -p "$log"
    # warm the binaries (compile caches, builds) before the lock
    spec_bin "$a" >/dev/null && spec_bin "$b" >/dev/null && spec_bin "$b2" >/dev/null || exit 1
    local pa=$PORT pb=$((PORT + 1)) pb2=$((PORT + 2))
    run_series() { # the players, the master; under the lock
        serve "$a" $pa "$log/a.log"
        serve "$b" $pb "$log/b.log"
        local players="http://127.0.0.1:$pa,http://127.0.0.1:$pb"
        if [ "$roles" = 3 ]; then
            serve "$b2" $pb2 "$log/b2.log"
            players="$players,http://127.0.0.1:$pb2"
        fi
        local l0 l1 out
        l0=$(load)
        if [ "$roles" = 1 ]; then
            out=$("$ggp" match "$game" --players "http://127.0.0.1:$pa" --startclock "$sc" \
                --playclock "$pc" --matches "$n" 2>"$log/master.err")
            out="$out"$'\n'$("$ggp" match "$game" --players "http://127.0.0.1:$pb" \
                --startclock "$sc" --playclock "$pc" --matches "$n" 2>>"$log/master.err")
        else
            out=$("$ggp" match "$game" --players "$players" --startclock "$sc" --playclock "$pc" \
                --matches "$n" --swap 2>"$log/master.err")
        fi
        l1=$(load)
        stop_servers
        echo "$out" >"$log/master.out"
        local la lb
        la=$(echo "$out" | grep "^player=http://127.0.0.1:$pa " | head -1)
        lb=$(echo "$out" | grep "^player=http://127.0.0.1:$pb " | head -1)
        [ -n "$la" ] || die "no result (see $log)"
        local errs note=""
        errs=$(($(field timeouts "$la") + $(field illegal "$la")))
        if [ "$roles" = 1 ]; then
            note="opponent alone: mean $(field mean_goal "$lb") ± $(field ci95 "$lb")"
        fi
        LEAGUE_NOTE="${LEAGUE_NOTE:-}${note:+ $note}" row local "$name" "$(field matches "$la")" \
            "$sc" "$pc" "$a" "$b" "$(field wins "$la")" "$(field draws "$la")" \
            "$(field losses "$la")" "$(field mean_goal "$la")" "$(field ci95 "$la")" "$errs" \
            "$l0" "$l1"
    }
    exec 9>"$LOCK"
    flock 9
    renice -n "${LEAGUE_NICE:--10}" $$ >/dev/null 2>&1
    run_series
    flock -u 9
}

# sparring GAME N START PLAY A OPP: through the sparring kit's series.sh.
cmd_sparring() {
    local game=$1 n=$2 sc=$3 pc=$4 a=$5 opp=$6
    [ -f "$game" ] || game=$CORPUS/$game.kif
    [ -f "$game" ] || die "no game $1"
    local bin kind name log
    bin=$(spec_bin "$a") || exit 1
    kind=$(spec_kind "$a")
    name=$(basename "$game" .kif)
    log=$LEAGUE_DIR/sparring.$name.$opp.$$
    # series.sh runs "$GGP serve ARGS": in a session of its own (the opponent stays in
    # series.sh's), with --verbose when asked
    local wrap=$LEAGUE_DIR/current.$$/ggp-serve verbose=""
    [ "${LEAGUE_VERBOSE:-0}" = 1 ] && verbose=" --verbose"
    mkdir -p "$(dirname "$wrap")" &&
        printf '#!/bin/sh\nexec setsid %q "$@"%s\n' "$bin" "$verbose" >"$wrap" && chmod +x "$wrap" ||
        die "cannot write $wrap"
    bin=$wrap
    local l0 l1
    exec 9>"$LOCK"
    flock 9
    l0=$(load)
    LOG=$log GGP=$bin OUT=$SPARRING_OUT nice -n "${LEAGUE_NICE:--10}" bash "$SPARRING/series.sh" "$game" "$n" "$sc" \
        "$pc" "$kind" "$opp" >"$log.out" 2>"$log.err"
    l1=$(load)
    flock -u 9
    local sum stats
    sum=$(grep '^summary' "$log.out" | tail -1)
    [ -n "$sum" ] || die "no summary (see $log.out, $log.err)"
    # mean and 95% interval of our goals, from the match records
    stats=$(python3 - "$log/results.jsonl" <<'EOF'
import json, math, sys
g = []
for line in open(sys.argv[1]):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    r = m.get("r", {})
    if not r.get("completed"):
        continue
    names = m["names"].split(",")
    ours = names.index("ours") if "ours" in names else (0 if m["match"] % 2 == 1 else 1)
    g.append(r["goals"][ours])
n = len(g)
mean = sum(g) / n if n else 0
var = sum((x - mean) ** 2 for x in g) / (n - 1) if n > 1 else 0
print("%.2f %.2f %d" % (mean, 1.96 * math.sqrt(var / n) if n else 0, n))
EOF
)
    set -- $stats
    row sparring "$name" "$3" "$sc" "$pc" "$a" "$opp" "$(field wins "$sum")" \
        "$(field draws "$sum")" "$(field losses "$sum")" "$1" "$2" "$(field our_errors "$sum")" \
        "$l0" "$l1"
}

cmd_table() {
    python3 scripts/league_table.py "$TSV" >docs/league.md.new && mv docs/league.md.new docs/league.md
    say "wrote docs/league.md"
}

case "${1:-}" in
build) build_rev "$2" ;;
local) shift && cmd_local "$@" ;;
sparring) shift && cmd_sparring "$@" ;;
table) cmd_table ;;
*) sed '1d; /^[^#]/,$d' "$0" | sed 's/^# \{0,1\}//' >&2 && exit 1 ;;
esac
