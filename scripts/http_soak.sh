#!/bin/bash
# Soak test of the HTTP player: N back-to-back tic-tac-toe matches (default 100) over HTTP
# between two `ggp serve` processes on loopback, driven by `ggp match` with short clocks.
# Records missed clocks and illegal moves (must be none), that both servers survive, and
# their resident memory (VmRSS from /proc/PID/status) every 10 matches; writes the table
# to docs/http_soak.md. Acceptance: no missed clock, no crash, flat memory.
# usage: scripts/http_soak.sh [--ggp PATH] [--matches N] [--out FILE]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
GGP=$ROOT/build/ggp
MATCHES=100
OUT=$ROOT/docs/http_soak.md
while [ $# -gt 0 ]; do
    case $1 in
    --ggp) GGP=$2; shift 2 ;;
    --matches) MATCHES=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h | --help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "unexpected argument '$1'" >&2; exit 2 ;;
    esac
done
[ -x "$GGP" ] || { echo "no ggp at $GGP (build it, or give --ggp)" >&2; exit 2; }
GGP=$(cd "$(dirname "$GGP")" && pwd)/$(basename "$GGP")
TMP=$(mktemp -d)
. "$ROOT/tests/integration/http_lib.sh"
trap 'http_cleanup; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM

GAME=$ROOT/games/tictactoe.kif
STARTCLOCK=2
PLAYCLOCK=1
BATCH=10
start_server a -- --player random --seed 101 --name soak-a
start_server b -- --player random --seed 202 --name soak-b
A=http://127.0.0.1:${PORT[a]}
B=http://127.0.0.1:${PORT[b]}

rows=()
total_timeouts=0
total_illegal=0
slowest=0
played=0
status=PASS
t0=$(date +%s.%N)
rss0_a=$(rss_kb "${PID[a]}")
rss0_b=$(rss_kb "${PID[b]}")
while [ "$played" -lt "$MATCHES" ]; do
    n=$((MATCHES - played < BATCH ? MATCHES - played : BATCH))
    timeout 300 "$GGP" match "$GAME" --players "$A,$B" --matches "$n" --swap --seed $((played + 1)) \
        --startclock $STARTCLOCK --playclock $PLAYCLOCK >"$TMP/batch.out" 2>"$TMP/batch.err" ||
        { status=FAIL; echo "ggp match failed: $(tail -3 "$TMP/batch.err")" >&2; }
    played=$((played + n))
    while read -r line; do
        t=$(sed -n 's/.* timeouts=\([0-9]*\).*/\1/p' <<<"$line")
        i=$(sed -n 's/.* illegal=\([0-9]*\).*/\1/p' <<<"$line")
        ms=$(sed -n 's/.* slowest_move_ms=\([0-9]*\).*/\1/p' <<<"$line")
        total_timeouts=$((total_timeouts + t))
        total_illegal=$((total_illegal + i))
        [ "$ms" -gt "$slowest" ] && slowest=$ms
    done < <(grep '^player=' "$TMP/batch.out")
    for s in a b; do
        kill -0 "${PID[$s]}" 2>/dev/null || { status=FAIL; echo "server $s died" >&2; }
    done
    ra=$(rss_kb "${PID[a]}" || echo 0)
    rb=$(rss_kb "${PID[b]}" || echo 0)
    rows+=("| $played | $ra | $rb | $total_timeouts | $total_illegal |")
    echo "after $played matches: rss a=${ra} kB b=${rb} kB, timeouts=$total_timeouts illegal=$total_illegal"
    [ "$status" = PASS ] || break
done
secs=$(echo "$(date +%s.%N) - $t0" | bc)
requests_a=$(grep -c ' cmd=' "$TMP/a.log" || true)
requests_b=$(grep -c ' cmd=' "$TMP/b.log" || true)
errors=$(grep ' cmd=' "$TMP/a.log" "$TMP/b.log" | grep -vc ' status=200' || true)
[ "$total_timeouts" -eq 0 ] && [ "$total_illegal" -eq 0 ] && [ "$errors" -eq 0 ] || status=FAIL

# flat memory: from the first sample on, each server's RSS grows by at most 1 MiB in all
first_a=$(awk -F'|' 'NR==1 {print $3+0}' <(printf '%s\n' "${rows[@]}"))
first_b=$(awk -F'|' 'NR==1 {print $4+0}' <(printf '%s\n' "${rows[@]}"))
last_a=${ra:-0}
last_b=${rb:-0}
grow_a=$((last_a - first_a))
grow_b=$((last_b - first_b))
memory=flat
if [ "$grow_a" -gt 1024 ] || [ "$grow_b" -gt 1024 ]; then memory="GROWING"; status=FAIL; fi

mkdir -p "$(dirname "$OUT")"
{
    echo "# HTTP soak test"
    echo
    echo "Written by \`scripts/http_soak.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC') ($(uname -srm))."
    echo
    echo "$played back-to-back matches of tic-tac-toe over HTTP on loopback between two"
    echo "\`ggp serve --player random\` processes (a and b), driven by \`ggp match --swap\` in batches"
    echo "of $BATCH, start clock ${STARTCLOCK} s, play clock ${PLAYCLOCK} s; $requests_a + $requests_b"
    echo "requests in ${secs%.*} s. Resident memory (VmRSS) of each server, sampled after every"
    echo "$BATCH matches, and the replaced moves counted by the game master so far:"
    echo
    echo "| matches | rss a (kB) | rss b (kB) | missed clocks | illegal moves |"
    echo "|---:|---:|---:|---:|---:|"
    echo "| 0 (started) | $rss0_a | $rss0_b | 0 | 0 |"
    printf '%s\n' "${rows[@]}"
    echo
    echo "- Missed clocks: $total_timeouts; illegal or unparsable moves: $total_illegal; HTTP errors: $errors."
    echo "- Slowest move seen by the game master: $slowest ms (play clock $((PLAYCLOCK * 1000)) ms)."
    echo "- Both servers alive at the end: $( [ "$status" = PASS ] && echo yes || echo see status)."
    echo "- Memory from the first sample to the last: a ${grow_a} kB, b ${grow_b} kB: $memory"
    echo "  (criterion: at most 1024 kB growth per server)."
    echo
    echo "Result: **$status**"
} >"$OUT"
echo "wrote $OUT: $status"
[ "$status" = PASS ]
