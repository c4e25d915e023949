#!/bin/bash
# Clocks under load: N matches (default 100) at a 1 s play clock between two
# `ggp serve --player mcts` processes on loopback (MCTS thinks until its deadline, so every
# answer is cut by the clock), while one busy loop per core keeps the machine's cores busy
# at normal priority. SLOW matches (default 10) of each large corpus game of SLOW_GAMES
# (default "chess alexChess checkers": games that do not ground, played on the interpreter,
# chess at a few hundred ms per state under load; each cut after STEPS steps, default 10,
# with --max-steps), the rest tic-tac-toe.
# Records, from the game master: missed clocks (late past the play clock + 1 s, the
# reference rule) and illegal moves, which must be 0; from the servers' logs: replies past
# the bare play clock, the slowest reply, the margins used (clock minus the deadline each
# answer was due at), the answers sent at the deadline and the answers not proven legal in
# their state (must be 0). Writes docs/http_clocks.md.
# usage: scripts/clock_load.sh [--ggp PATH] [--matches N] [--slow N] [--slow-games "G..."]
#                              [--steps K] [--playclock S] [--corpus DIR] [--out FILE]
#                              [--logs DIR]   (keeps the two servers' logs there)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
GGP=$ROOT/build/ggp
MATCHES=100
SLOW=10
SLOW_GAMES="chess alexChess checkers"
STEPS=10
PLAYCLOCK=1
STARTCLOCK=2
CORPUS=${GGP_CORPUS:-$ROOT/../shared/gdl-corpus}
OUT=$ROOT/docs/http_clocks.md
LOGS=""
while [ $# -gt 0 ]; do
    case $1 in
    --ggp) GGP=$2; shift 2 ;;
    --matches) MATCHES=$2; shift 2 ;;
    --slow) SLOW=$2; shift 2 ;;
    --slow-games) SLOW_GAMES=$2; shift 2 ;;
    --steps) STEPS=$2; shift 2 ;;
    --playclock) PLAYCLOCK=$2; shift 2 ;;
    --corpus) CORPUS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --logs) LOGS=$2; shift 2 ;;
    -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "unexpected argument '$1'" >&2; exit 2 ;;
    esac
done
[ -x "$GGP" ] || { echo "no ggp at $GGP (build it, or give --ggp)" >&2; exit 2; }
GGP=$(cd "$(dirname "$GGP")" && pwd)/$(basename "$GGP")
[ "$SLOW" -gt 0 ] || SLOW_GAMES=""
N_SLOW=0
for g in $SLOW_GAMES; do
    [ -f "$CORPUS/$g.kif" ] || { echo "no $CORPUS/$g.kif (give --corpus, or --slow 0)" >&2; exit 2; }
    N_SLOW=$((N_SLOW + 1))
done
FAST=$((MATCHES - SLOW * N_SLOW))
[ "$FAST" -ge 0 ] || { echo "--matches $MATCHES is less than $N_SLOW slow games x $SLOW" >&2; exit 2; }
TMP=$(mktemp -d)
. "$ROOT/tests/integration/http_lib.sh"
. "$ROOT/scripts/lib.sh"
trap 'stop_load; http_cleanup; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM

start_server a -- --player mcts --seed 11 --name clock-a
start_server b -- --player mcts --seed 22 --name clock-b
A=http://127.0.0.1:${PORT[a]}
B=http://127.0.0.1:${PORT[b]}
start_load
sleep 1
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

timeouts=0 illegal=0 slowest=0 played=0 status=PASS
declare -A G_T G_I G_MS G_N
# series GAME N [options]: N matches of GAME, a against b, seats swapped.
series() {
    local game=$1 n=$2 done_=0 k line t i ms rc name
    name=$(basename "$game" .kif)
    G_T[$name]=0 G_I[$name]=0 G_MS[$name]=0 G_N[$name]=$n
    shift 2
    while [ $done_ -lt "$n" ]; do
        k=$((n - done_ < 10 ? n - done_ : 10))
        rc=0
        timeout 900 "$GGP" match "$game" --players "$A,$B" --matches "$k" --swap \
            --seed $((played + 1)) --startclock "$STARTCLOCK" --playclock "$PLAYCLOCK" "$@" \
            >"$TMP/batch.out" 2>"$TMP/batch.err" || rc=$?
        # --max-steps ends the matches with exit 1 (aborted); anything else is a failure
        if [ $rc -ne 0 ] && ! { [ $# -gt 0 ] && [ $rc -eq 1 ]; }; then
            status=FAIL
            echo "ggp match exited $rc: $(tail -3 "$TMP/batch.err")" >&2
        fi
        while read -r line; do
            t=$(sed -n 's/.* timeouts=\([0-9]*\).*/\1/p' <<<"$line")
            i=$(sed -n 's/.* illegal=\([0-9]*\).*/\1/p' <<<"$line")
            ms=$(sed -n 's/.* slowest_move_ms=\([0-9]*\).*/\1/p' <<<"$line")
            timeouts=$((timeouts + t))
            illegal=$((illegal + i))
            if [ "$ms" -gt "$slowest" ]; then slowest=$ms; fi
            G_T[$name]=$((G_T[$name] + t))
            G_I[$name]=$((G_I[$name] + i))
            if [ "$ms" -gt "${G_MS[$name]}" ]; then G_MS[$name]=$ms; fi
        done < <(grep '^player=' "$TMP/batch.out")
        done_=$((done_ + k))
        played=$((played + k))
        echo "after $played matches ($name): missed clocks $timeouts, illegal $illegal, slowest $slowest ms"
    done
}

t0=$(date +%s)
[ "$FAST" -eq 0 ] || series "$ROOT/games/tictactoe.kif" "$FAST"
for g in $SLOW_GAMES; do series "$CORPUS/$g.kif" "$SLOW" --max-steps "$STEPS"; done
secs=$(($(date +%s) - t0))
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
stop_load
for s in a b; do kill -0 "${PID[$s]}" 2>/dev/null || { status=FAIL; echo "server $s died" >&2; }; done
[ -z "$LOGS" ] || { mkdir -p "$LOGS" && cp "$TMP/a.log" "$TMP/b.log" "$LOGS/"; }

# From the servers' logs: PLAY replies, their times and the deadlines they were due at.
clock_ms=$(awk -v c="$PLAYCLOCK" 'BEGIN { print c * 1000 }')
cat "$TMP/a.log" "$TMP/b.log" | grep ' cmd=play ' | sed -n 's/.* ms=\([0-9]*\) due_ms=\([0-9]*\) .*/\1 \2/p' >"$TMP/plays"
plays=$(wc -l <"$TMP/plays")
over=$(awk -v c="$clock_ms" '$1 > c' "$TMP/plays" | wc -l)
server_slowest=$(sort -n "$TMP/plays" | tail -1 | cut -d' ' -f1)
margins=$(awk -v c="$clock_ms" '{ m = c - $2; if (NR == 1 || m < lo) lo = m; if (m > hi) hi = m; s += m }
    END { if (NR) printf "%d..%d ms (mean %.0f)", lo, hi, s / NR }' "$TMP/plays")
at_deadline=$(cat "$TMP/a.log" "$TMP/b.log" | grep -c 'answered at the deadline' || true)
example=$(cat "$TMP/a.log" "$TMP/b.log" | grep -m1 'answered at the deadline' | cut -c25- || true)
errors=$(cat "$TMP/a.log" "$TMP/b.log" | grep ' cmd=' | grep -vc ' status=200' || true)
unproven=$(cat "$TMP/a.log" "$TMP/b.log" | grep -c 'no legal move proven in time' || true)
engines=$(cat "$TMP/a.log" "$TMP/b.log" | grep '^engine: ' | sed 's|^engine: [^ ]*|engine: GAME|; s|, remembered in [^)]*||' | sort | uniq -c | sed 's/^ *//' || true)
[ "$timeouts" -eq 0 ] && [ "$illegal" -eq 0 ] && [ "$errors" -eq 0 ] && [ "$unproven" -eq 0 ] || status=FAIL

notes="" # the hand-written reading between the notes markers is kept
[ -f "$OUT" ] && notes=$(sed -n '/<!-- notes:begin -->/,/<!-- notes:end -->/p' "$OUT")
sweep="" # and the section of scripts/clock_sweep.sh's figures, between its markers
[ -f "$OUT" ] && sweep=$(sed -n '/<!-- sweep:begin -->/,/<!-- sweep:end -->/p' "$OUT")
mkdir -p "$(dirname "$OUT")"
{
    echo "# Clocks over HTTP"
    echo
    if [ -n "$sweep" ]; then echo "$sweep"; echo; fi
    echo "## Clocks under load (\`scripts/clock_load.sh\`)"
    echo
    echo "Written by \`scripts/clock_load.sh --matches $MATCHES --slow $SLOW --slow-games \"$SLOW_GAMES\" --steps $STEPS\`"
    echo "on $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "($(uname -srm), $(nproc) cores)."
    echo
    echo "$played matches over HTTP on loopback between two \`ggp serve --player mcts\` processes (MCTS"
    echo "searches until each deadline, so every answer is cut by the clock), start clock ${STARTCLOCK} s,"
    echo "play clock ${PLAYCLOCK} s, seats swapped, while $(nproc) busy loops (one per core, normal priority)"
    echo "kept the cores busy: load average $load_start when the series started, $load_end at the"
    echo "end (the machine was also shared with other work). $FAST matches of tic-tac-toe, and"
    echo "$SLOW of each of ${SLOW_GAMES:-no} large games from the public corpus, each cut after $STEPS steps"
    echo "(\`--max-steps $STEPS\`, the master aborts it). $secs s in all."
    echo
    echo "| game | matches | missed clocks | illegal moves | slowest reply (master) |"
    echo "|---|---:|---:|---:|---:|"
    for name in tictactoe $SLOW_GAMES; do
        [ -n "${G_N[$name]:-}" ] || continue
        echo "| $name | ${G_N[$name]} | ${G_T[$name]} | ${G_I[$name]} | ${G_MS[$name]} ms |"
    done
    echo
    echo "| | |"
    echo "|---|---:|"
    echo "| missed clocks (replies later than the play clock + 1 s: the master replaced the move) | $timeouts |"
    echo "| illegal or unparsable moves | $illegal |"
    echo "| HTTP errors | $errors |"
    echo "| PLAY replies (both servers) | $plays |"
    echo "| replies later than the bare play clock (${clock_ms} ms) | $over |"
    echo "| slowest reply, as the master measured it | $slowest ms |"
    echo "| slowest reply, as the server measured it | ${server_slowest:-?} ms |"
    echo "| margin kept before the play clock (clock minus when the answer was due) | ${margins:-?} |"
    echo "| answers sent at the deadline while the player was still thinking | $at_deadline |"
    echo "| answers not proven legal in their state (\"no legal move proven in time\") | $unproven |"
    echo
    echo "The margin is 0.2 s plus twice the recent lateness of replies (how far past their"
    echo "deadline they finished sending, a decaying maximum), at most 2 s and never more than"
    echo "half the clock (\`server/service.h\`): it grows when the machine is slow to send."
    [ -z "$example" ] || { echo "An answer sent at the deadline is logged like this:"; echo; echo '```'; echo "$example"; echo '```'; }
    if [ -n "$engines" ]; then
        echo
        echo "What the servers' players searched with (lines of their logs, counted):"
        echo
        echo '```'
        echo "$engines"
        echo '```'
    fi
    echo
    echo "Result: **$status**"
    if [ -n "$notes" ]; then echo; echo "### Reading"; echo; echo "$notes"; fi
} >"$OUT"
echo "wrote $OUT: $status"
[ "$status" = PASS ]
