#!/bin/bash
# The start clock on large games: for each game of GAMES (default: four corpus games whose
# grounding or compiling takes seconds), two `ggp serve --player mcts` processes with an
# empty engine cache (GGP_CACHE, so nothing is ground or compiled yet) play one match at a
# short start clock (default 5 s) and a 1 s play clock, cut after STEPS steps (default 6).
# The player's preparation (grounding, compiling, the first search) must end within the
# start clock: the server logs "start: answered at the deadline ... still thinking" when it
# did not, and then the first PLAYs wait for it. Records per game and server: the START
# reply time, whether the preparation was still running at the deadline, the engine the
# player ended with (the log's engine line), and from the game master the missed clocks and
# illegal moves (which must be 0). With --load, one busy loop per core runs meanwhile.
# Writes docs/start_clock.md.
# usage: scripts/start_clock.sh [--ggp PATH] [--games "G..."] [--startclock S] [--steps K]
#                               [--load] [--corpus DIR] [--out FILE]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
GGP=$ROOT/build/ggp
GAMES="breakthroughWalls skirmishNew speedChess connectFourLarge"
STARTCLOCK=5
PLAYCLOCK=1
STEPS=6
LOAD=0
CORPUS=${GGP_CORPUS:-$ROOT/../shared/gdl-corpus}
OUT=$ROOT/docs/start_clock.md
while [ $# -gt 0 ]; do
    case $1 in
    --ggp) GGP=$2; shift 2 ;;
    --games) GAMES=$2; shift 2 ;;
    --startclock) STARTCLOCK=$2; shift 2 ;;
    --steps) STEPS=$2; shift 2 ;;
    --load) LOAD=1; shift ;;
    --corpus) CORPUS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "unexpected argument '$1'" >&2; exit 2 ;;
    esac
done
[ -x "$GGP" ] || { echo "no ggp at $GGP (build it, or give --ggp)" >&2; exit 2; }
GGP=$(cd "$(dirname "$GGP")" && pwd)/$(basename "$GGP")
for g in $GAMES; do
    [ -f "$CORPUS/$g.kif" ] || { echo "no $CORPUS/$g.kif (give --corpus)" >&2; exit 2; }
done
TMP=$(mktemp -d)
. "$ROOT/tests/integration/http_lib.sh"
. "$ROOT/scripts/lib.sh"
trap 'stop_load; http_cleanup; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM

if [ "$LOAD" = 1 ]; then
    start_load
fi
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
status=PASS
rows=()
for g in $GAMES; do
    cache=$TMP/cache-$g
    mkdir -p "$cache"
    start_server "$g-a" "GGP_CACHE=$cache" -- --player mcts --seed 1 --name a
    start_server "$g-b" "GGP_CACHE=$cache" -- --player mcts --seed 2 --name b
    rc=0
    timeout 300 "$GGP" match "$CORPUS/$g.kif" \
        --players "http://127.0.0.1:${PORT[$g-a]},http://127.0.0.1:${PORT[$g-b]}" --seed 1 \
        --startclock "$STARTCLOCK" --playclock "$PLAYCLOCK" --max-steps "$STEPS" \
        >"$TMP/$g.out" 2>"$TMP/$g.err" || rc=$?
    [ $rc -le 1 ] || { status=FAIL; echo "$g: ggp match exited $rc: $(tail -3 "$TMP/$g.err")" >&2; }
    kill "${PID[$g-a]}" "${PID[$g-b]}" 2>/dev/null || true
    wait "${PID[$g-a]}" "${PID[$g-b]}" 2>/dev/null || true
    for s in a b; do
        log=$TMP/$g-$s.log
        ms=$(sed -n 's/.* cmd=start ms=\([0-9]*\) .*/\1/p' "$log" | head -1)
        late=$(grep -c 'start: answered at the deadline' "$log" || true)
        unproven=$(grep -c 'no legal move proven in time' "$log" || true)
        engine=$(grep -m1 '^engine: ' "$log" | sed 's|^engine: [^ :]*|the game|; s|, remembered in [^)]*||' || true)
        line=$(grep "^player=http://127.0.0.1:${PORT[$g-$s]} " "$TMP/$g.out" || true)
        t=$(sed -n 's/.* timeouts=\([0-9]*\).*/\1/p' <<<"$line")
        i=$(sed -n 's/.* illegal=\([0-9]*\).*/\1/p' <<<"$line")
        [ -n "$ms" ] && [ "$ms" -lt "$((STARTCLOCK * 1000))" ] && [ "$late" -eq 0 ] &&
            [ "${t:-1}" -eq 0 ] && [ "${i:-1}" -eq 0 ] && [ "$unproven" -eq 0 ] || status=FAIL
        rows+=("| $g | $s | ${ms:-?} ms | $([ "$late" -eq 0 ] && echo no || echo yes) | ${t:-?} | ${i:-?} | $unproven | ${engine:-ground or compiled within the clock} |")
        echo "$g $s: START ${ms:-?} ms, still preparing at the deadline: $late, missed ${t:-?}, illegal ${i:-?}, unproven $unproven"
    done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
stop_load

notes="" # the hand-written reading between the notes markers is kept
[ -f "$OUT" ] && notes=$(sed -n '/<!-- notes:begin -->/,/<!-- notes:end -->/p' "$OUT")
mkdir -p "$(dirname "$OUT")"
{
    echo "# The start clock on large games"
    echo
    echo "Written by \`scripts/start_clock.sh --startclock $STARTCLOCK --steps $STEPS$([ "$LOAD" = 1 ] && echo " --load")\`"
    echo "on $(date -u '+%Y-%m-%d %H:%M UTC') ($(uname -srm), $(nproc) cores)."
    echo
    echo "One match per game over HTTP on loopback between two \`ggp serve --player mcts\`"
    echo "processes (a, b) whose engine cache starts empty, so that each player grounds (and"
    echo "compiles, when the network is small enough) the game during START: start clock"
    echo "${STARTCLOCK} s, play clock ${PLAYCLOCK} s, cut after $STEPS steps. $([ "$LOAD" = 1 ] && echo "$(nproc) busy loops (one per core,
normal priority) ran meanwhile; l" || echo "L")oad average $load_start at the start, $load_end at the end (the machine was"
    echo "shared with other work)."
    echo
    echo "| game | server | START answered after | still preparing at the deadline | missed clocks | illegal moves | not proven legal | engine (the log's line) |"
    echo "|---|---|---:|---|---:|---:|---:|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "A player prepares its engine within 80% of the start clock left (\`engine_new_by\`):"
    echo "grounding stops at that deadline (the game is then played on the interpreter, and"
    echo "the failure is not remembered, so a longer clock grounds it), and the network is not"
    echo "compiled when the compiler would likely outlast it (1 s + 1 ms per literal); the"
    echo "first legal move is computed before any of it."
    echo
    echo "Result: **$status**"
    if [ -n "$notes" ]; then echo; echo "## Reading"; echo; echo "$notes"; fi
} >"$OUT"
echo "wrote $OUT: $status"
[ "$status" = PASS ]
