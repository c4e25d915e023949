#!/usr/bin/env bash
# corpus_traces.sh GGP [CORPUS_DIR]
#
# The reference-trace test over the public GDL corpus (../shared/gdl-corpus/README.md).
# For every GAME.trace beside a GAME.kif or GAME.gdl:
#   1. `GGP trace GAME --seed 1 --matches 2` must print the trace file, byte for byte;
#   2. the trace is split into its matches; each match's `does` lines (without the word
#      `does`) make a moves file, and `GGP trace GAME --moves FILE` must print that match,
#      byte for byte.
# Games run in parallel, each under a time limit; a game that runs out of time fails.
# Each game's engine (`--show-engine`) is recorded and summed up at the end. When the engine
# asked for is a ground one (GGP_TRACE_ENGINE=ground or compiled), a game that falls back to
# the interpreter fails, unless tests/corpus_noground.txt lists it (format: FILE reason);
# a listed game that grounds fails too (take it off the list), and so does a listed file
# that is not in the corpus. Listed games try to ground within GGP_NOGROUND_WORK join steps
# (default 5 million, GGP_GROUND_WORK for them) and 500,000 atoms only: they are expected
# to run out. Whether a
# game grounds is decided by counts of work (GGP_GROUND_WORK), never by time. With
# GGP_TRACE_GROUND_WORK the other games ground within that many steps only, and one that
# runs out of it replays on the interpreter (a trace is cheap to replay there, a large
# network dear to ground three times; engine_diff_corpus grounds every game in full).
#
# Environment:
#   GGP_CORPUS          corpus directory (overrides the argument)
#   GGP_CORPUS_TIMEOUT  seconds per game, all three runs together: a hang guard (default 900)
#   GGP_CORPUS_JOBS     games run at once (default 2)
#   GGP_CORPUS_SUBSET   a file of game names (one per line, '#' comments): only those run
#   GGP_CORPUS_SHARD    K/N: only shard K of N of those games (tests/shard.sh)
#   GGP_TRACE_REPLAY    0: skip step 2 (the `--moves` replays; default 1)
#   GGP_CORPUS_VERBOSE  1: also print a line for every game that passes
#   GGP_CORPUS_TIMES    a file to write "SECONDS GAME" lines to, one per game
#   GGP_TRACE_ENGINE    the engine `ggp trace` uses (--engine; default: its own, auto)
#   GGP_GROUND_WORK     the grounder's work limit (join steps) for the other games
#   GGP_NOGROUND_WORK   its work limit for the games of corpus_noground.txt (default 5000000)
#   GGP_TRACE_GROUND_WORK  the work limit for the other games, past which they replay on
#                       the interpreter (default: GGP_GROUND_WORK, and they must ground)
#   CI                  when "true", a missing corpus is a failure instead of a skip
#
# Prints one line per failing game, then "N passed, M failed". Exits 0 when every game
# passes, 1 on any difference, 77 (CTest's skip code) when the corpus is not there.

set -u

# ---- one game (run by the parallel workers below) ----
NOGROUND=$(dirname "$0")/corpus_noground.txt
is_noground() { [ -f "$NOGROUND" ] && sed 's/#.*//' "$NOGROUND" | awk '{print $1}' | grep -qxF "$1"; }

if [ "${1:-}" = "--one" ]; then
    GGP=$2 GAME=$3 RESULTS=${4:-}
    dir=$(dirname "$GAME") base=$(basename "$GAME")
    name=${base%.*}
    ref=$dir/$name.trace
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    first_diff() { # where two files first differ, for the failure message
        awk 'NR == FNR { a[FNR] = $0; n = FNR; next }
             !found && (!(FNR in a) || a[FNR] != $0) {
                 printf "first difference at line %d\n  expected: %s\n  got:      %s\n", FNR,
                        substr(FNR in a ? a[FNR] : "<end of file>", 1, 200), substr($0, 1, 200)
                 found = 1
             }
             { m = FNR }
             END { if (!found && m < n) printf "first difference at line %d\n  expected: %s\n  got:      <end of output>\n", m + 1, substr(a[m + 1], 1, 200) }' "$1" "$2"
    }
    # Exit 0 when the reference trace is complete; 1 (a reported game defect) when the
    # reference stopped early. Anything else (a crash, a sanitizer report) fails.
    want=0
    [ "$(tail -1 "$ref")" = end ] || want=1
    engine=()
    [ -n "${GGP_TRACE_ENGINE:-}" ] && engine=(--engine "$GGP_TRACE_ENGINE")
    listed=0
    budget=${GGP_TRACE_GROUND_WORK:-}
    if is_noground "$base"; then
        listed=1
        export GGP_GROUND_WORK=${GGP_NOGROUND_WORK:-5000000} GGP_GROUND_ATOMS=500000
    elif [ -n "$budget" ]; then
        export GGP_GROUND_WORK=$budget
    fi
    "$GGP" trace "$GAME" "${engine[@]}" --show-engine --seed 1 --matches 2 >"$tmp/seed.out" 2>"$tmp/seed.err"
    rc=$?
    used=$(sed -n 's/^engine: \([a-z]*\)$/\1/p' "$tmp/seed.err" | head -1)
    # past the trace test's budget: the interpreter replays it (not a failure)
    over=0
    [ -n "$budget" ] && [ $listed = 0 ] && [ "$used" = interp ] &&
        grep -q "does not ground (out of work ($budget join steps)" "$tmp/seed.err" && over=1
    [ $over = 1 ] && used=interp-over-budget
    [ -n "$RESULTS" ] && echo "${used:-none}" >"$RESULTS/$base.engine"
    sed -i '/^engine: [a-z]*$/d' "$tmp/seed.err"
    if ! cmp -s "$tmp/seed.out" "$ref" || [ $rc -ne $want ]; then
        echo "FAIL $base: --seed 1 --matches 2 differs from $name.trace (exit $rc, expected $want)"
        first_diff "$ref" "$tmp/seed.out" | sed 's/^/    /'
        head -3 "$tmp/seed.err" | sed 's/^/    stderr: /'
        exit 1
    fi
    if [ "${GGP_TRACE_ENGINE:-}" = ground ] || [ "${GGP_TRACE_ENGINE:-}" = compiled ]; then
        if [ "$used" = interp ] && [ $listed = 0 ] && [ $over = 0 ]; then
            echo "FAIL $base: fell back to the interpreter; only the games of $(basename "$NOGROUND") may"
            grep -m1 "does not ground" "$tmp/seed.err" | sed 's/^/    /'
            exit 1
        elif [ "${used%%-*}" != interp ] && [ $listed = 1 ]; then
            echo "FAIL $base: grounds now ($used); take it off $(basename "$NOGROUND")"
            exit 1
        fi
    fi
    # A game that fell back to the interpreter replays on it at once (a failure within a
    # work limit is remembered in the cache anyway; one of time is not, engine.c).
    grep -q "does not ground" "$tmp/seed.err" && engine=(--engine interp)
    if [ "${GGP_TRACE_REPLAY:-1}" != 0 ]; then
        # Split the reference into matches: match K runs from its `game` line to its `end`.
        awk -v dir="$tmp" '
            /^game / { k++ }
            { print > (dir "/match" k ".trace") }
            /^does / { print substr($0, 6) > (dir "/match" k ".moves") }
        ' "$ref"
        for m in "$tmp"/match*.trace; do
            k=${m%.trace}
            touch "$k.moves" # a match that is over at step 0 has no moves
            want=0
            [ "$(tail -1 "$m")" = end ] || want=1
            "$GGP" trace "$GAME" "${engine[@]}" --moves "$k.moves" >"$k.out" 2>"$k.err"
            rc=$?
            if ! cmp -s "$k.out" "$m" || [ $rc -ne $want ]; then
                echo "FAIL $base: --moves replay of $(basename "$k") differs (exit $rc, expected $want)"
                first_diff "$m" "$k.out" | sed 's/^/    /'
                head -3 "$k.err" | sed 's/^/    stderr: /'
                exit 1
            fi
        done
    fi
    [ "${GGP_CORPUS_VERBOSE:-0}" = 1 ] && echo "PASS $base ($used)"
    exit 0
fi

# ---- one game under its time limit, result recorded in a file ----
if [ "${1:-}" = "--timed" ]; then
    GGP=$2 GAME=$3 RESULTS=$4 LIMIT=$5
    base=$(basename "$GAME")
    start=$(date +%s)
    timeout -k 5 "$LIMIT" bash "$0" --one "$GGP" "$GAME" "$RESULTS" 2>&1 | grep -v '^Terminated$' >"$RESULTS/$base.log"
    rc=${PIPESTATUS[0]}
    if [ $rc -ge 124 ]; then
        . "$(dirname "$0")/exit_reason.sh"
        echo "FAIL $base: $(exit_reason $rc "$LIMIT")" >>"$RESULTS/$base.log"
    fi
    cat "$RESULTS/$base.log"
    echo "$rc $(($(date +%s) - start))" >"$RESULTS/$base.rc"
    exit 0
fi

# ---- the driver ----
if [ $# -lt 1 ]; then
    echo "usage: $0 GGP [CORPUS_DIR]" >&2
    exit 2
fi
GGP=$(realpath "$1")
CORPUS=${GGP_CORPUS:-${2:-}}
LIMIT=${GGP_CORPUS_TIMEOUT:-900}
JOBS=${GGP_CORPUS_JOBS:-2}

if [ -z "$CORPUS" ] || [ ! -d "$CORPUS" ]; then
    if [ "${CI:-}" = true ]; then
        echo "corpus tests FAILED: corpus not found at '${CORPUS}' (CI=true requires it)" >&2
        exit 1
    fi
    echo "corpus tests did not run: corpus not found at '${CORPUS}' (set GGP_CORPUS)"
    exit 77
fi
if [ ! -x "$GGP" ]; then
    echo "corpus traces: ggp binary not found: $GGP" >&2
    exit 2
fi

results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT

# The games with a reference trace, optionally restricted to a subset.
list=$results/games
for t in "$CORPUS"/*.trace; do
    name=$(basename "$t" .trace)
    if [ -n "${GGP_CORPUS_SUBSET:-}" ] &&
        ! sed 's/#.*//' "$GGP_CORPUS_SUBSET" | grep -qxF "$name"; then
        continue
    fi
    for ext in kif gdl; do
        [ -f "$CORPUS/$name.$ext" ] && echo "$CORPUS/$name.$ext"
    done
done >"$list.all"
. "$(dirname "$0")/shard.sh"
shard_filter <"$list.all" >"$list" || exit 2
total=$(wc -l <"$list")
if [ "$total" -eq 0 ]; then
    echo "corpus traces: no game with a .trace found in $CORPUS" >&2
    exit 1
fi
# the list of games allowed not to ground names games of the corpus only
stale=""
if [ -f "$NOGROUND" ]; then
    for f in $(sed 's/#.*//' "$NOGROUND" | awk '{print $1}'); do
        [ -f "$CORPUS/$f" ] || stale="$stale $f"
    done
fi

start=$(date +%s)
tr '\n' '\0' <"$list" |
    xargs -0 -P "$JOBS" -I{} bash "$0" --timed "$GGP" {} "$results" "$LIMIT"

# Known differences (tests/corpus_known_differences.txt, format: FILE reason): games where
# our trace still differs from the reference, each with the reason. They are reported as
# known, not passed; one that starts to agree fails the test until it is taken off the list.
KNOWN=$(dirname "$0")/corpus_known_differences.txt
is_known() { [ -f "$KNOWN" ] && sed 's/#.*//' "$KNOWN" | awk '{print $1}' | grep -qxF "$1"; }
passed=0 failed=0 known=0 failures="" known_list=""
while read -r game; do
    base=$(basename "$game")
    rc=$(cut -d' ' -f1 "$results/$base.rc" 2>/dev/null || echo missing)
    if [ "$rc" = 0 ] && is_known "$base"; then
        echo "FAIL $base: agrees with the reference now; remove it from $(basename "$KNOWN")"
        failed=$((failed + 1))
        failures="$failures $base"
    elif [ "$rc" = 0 ]; then
        passed=$((passed + 1))
    elif is_known "$base"; then
        known=$((known + 1))
        known_list="$known_list $base"
    else
        failed=$((failed + 1))
        failures="$failures $base"
    fi
done <"$list"
if [ -n "${GGP_CORPUS_TIMES:-}" ]; then
    for f in "$results"/*.rc; do echo "$(cut -d' ' -f2 "$f") $(basename "$f" .rc)"; done |
        sort -n >"$GGP_CORPUS_TIMES"
fi
echo "corpus traces: $total games with reference traces${GGP_CORPUS_SHARD:+ (shard $GGP_CORPUS_SHARD)}, $(($(date +%s) - start)) s, $JOBS jobs"
echo "slowest:$(for f in "$results"/*.rc; do echo "$(cut -d' ' -f2 "$f") $(basename "$f" .rc)"; done |
    sort -rn | head -5 | awk '{printf " %s (%d s)", $2, $1}')"
engines=$(cat "$results"/*.engine 2>/dev/null | sort | uniq -c | awk '{printf " %s %d,", $2, $1}')
echo "engines:${engines%,}"
interp=$(for f in "$results"/*.engine; do [ "$(cat "$f")" = interp ] && basename "$f" .engine; done | tr '\n' ' ')
[ -n "$interp" ] && echo "played by the interpreter: $interp"
over=$(for f in "$results"/*.engine; do [ "$(cat "$f")" = interp-over-budget ] && basename "$f" .engine; done | tr '\n' ' ')
[ -n "$over" ] && echo "past the trace test's grounding budget ($GGP_TRACE_GROUND_WORK join steps), replayed by the interpreter: $over"
if [ -n "$stale" ]; then
    echo "FAIL $(basename "$NOGROUND") names files not in the corpus:$stale"
    failed=$((failed + 1))
fi
[ -n "$failures" ] && echo "failing:$failures"
[ -n "$known_list" ] && echo "known differences (not passed, see $(basename "$KNOWN")):$known_list"
echo "$known known differences"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
