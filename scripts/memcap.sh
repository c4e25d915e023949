#!/bin/bash
# Bounded memory over a long match at long clocks: one `ggp serve --player mcts:mem=MB`
# (default 200 MiB for the search tree) plays GAME (default games/breakthrough.kif, a
# large tree on the compiled engine) against the game master's local `random` player,
# start clock START_S (default 30 s), play clock PLAY_S (default 60 s), cut after STEPS
# steps (default 20; the server thinks on its own turns only, so about STEPS/2 full
# clocks). The server's resident memory (VmRSS) is sampled every INTERVAL seconds (default
# 5), and its peak (VmHWM) read at the end; its verbose log gives the tree's size after
# each search. The cap holds when the tree never reports more than the cap, and the peak
# stays under the cap plus the rest of the process (rules, engine, reasoner: the resident
# memory before the match plus 64 MiB).
# Writes docs/memcap.md.
# usage: scripts/memcap.sh [--ggp PATH] [--game FILE] [--mem MB] [--startclock S]
#                          [--playclock S] [--steps K] [--interval S] [--out FILE]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
GGP=$ROOT/build/ggp
GAME=$ROOT/games/breakthrough.kif
MEM=200
START_S=30
PLAY_S=60
STEPS=20
INTERVAL=5
OUT=$ROOT/docs/memcap.md
while [ $# -gt 0 ]; do
    case $1 in
    --ggp) GGP=$2; shift 2 ;;
    --game) GAME=$2; shift 2 ;;
    --mem) MEM=$2; shift 2 ;;
    --startclock) START_S=$2; shift 2 ;;
    --playclock) PLAY_S=$2; shift 2 ;;
    --steps) STEPS=$2; shift 2 ;;
    --interval) INTERVAL=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "unexpected argument '$1'" >&2; exit 2 ;;
    esac
done
[ -x "$GGP" ] || { echo "no ggp at $GGP (build it, or give --ggp)" >&2; exit 2; }
[ -f "$GAME" ] || { echo "no game $GAME" >&2; exit 2; }
GGP=$(cd "$(dirname "$GGP")" && pwd)/$(basename "$GGP")
TMP=$(mktemp -d)
. "$ROOT/tests/integration/http_lib.sh"
trap 'http_cleanup; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM

rss_of() { sed -n "s/^$2:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$1/status" 2>/dev/null || true; }

start_server m -- --player "mcts:mem=$MEM" --seed 3 --verbose --name memcap
pid=${PID[m]}
base=$(rss_of "$pid" VmRSS)
t0=$(date +%s)
timeout $((START_S + (STEPS + 2) * (PLAY_S + 2) + 60)) "$GGP" match "$GAME" \
    --players "http://127.0.0.1:${PORT[m]},random" --seed 4 --startclock "$START_S" \
    --playclock "$PLAY_S" --max-steps "$STEPS" >"$TMP/match.out" 2>"$TMP/match.err" &
match_pid=$!
: >"$TMP/samples"
while kill -0 "$match_pid" 2>/dev/null; do
    echo "$(($(date +%s) - t0)) $(rss_of "$pid" VmRSS)" >>"$TMP/samples"
    echo "$(tail -1 "$TMP/samples" | awk '{ printf "%4d s: %d kB\n", $1, $2 }')"
    sleep "$INTERVAL"
done
rc=0
wait "$match_pid" || rc=$?
secs=$(($(date +%s) - t0))
peak=$(rss_of "$pid" VmHWM)
kill -0 "$pid" 2>/dev/null && alive=yes || alive=no
cap_kb=$((MEM * 1024))
limit_kb=$((cap_kb + base + 64 * 1024))
max_sample=$(awk '$2 > m { m = $2 } END { print m + 0 }' "$TMP/samples")
trees=$(grep -o 'tree [0-9.]* of [0-9]* MiB[^,]*' "$TMP/m.log" || true)
tree_max=$(sed -n 's/tree \([0-9.]*\) of.*/\1/p' <<<"$trees" | sort -n | tail -1)
full=$(grep -c 'full: the tree stopped growing' <<<"$trees" || true)
searches=$(grep -c . <<<"$trees" || true)
line=$(grep "^player=http" "$TMP/match.out" || true)
timeouts=$(sed -n 's/.* timeouts=\([0-9]*\).*/\1/p' <<<"$line")
illegal=$(sed -n 's/.* illegal=\([0-9]*\).*/\1/p' <<<"$line")
status=PASS
tree_ok=$(awk -v t="${tree_max:-0}" -v m="$MEM" 'BEGIN { print (t > 0 && t <= m) ? 1 : 0 }')
[ "${peak:-0}" -gt 0 ] && [ "$peak" -le "$limit_kb" ] && [ "$tree_ok" = 1 ] && [ "$alive" = yes ] && [ $rc -le 1 ] &&
    [ "${timeouts:-1}" -eq 0 ] && [ "${illegal:-1}" -eq 0 ] || status=FAIL

mkdir -p "$(dirname "$OUT")"
notes=""
[ -f "$OUT" ] && notes=$(sed -n '/<!-- notes:begin -->/,/<!-- notes:end -->/p' "$OUT")
{
    echo "# Bounded memory over a long match"
    echo
    echo "Written by \`scripts/memcap.sh --game $(basename "$GAME") --mem $MEM --startclock $START_S --playclock $PLAY_S --steps $STEPS\`"
    echo "on $(date -u '+%Y-%m-%d %H:%M UTC') ($(uname -srm), $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo))."
    echo
    echo "One \`ggp serve --player mcts:mem=$MEM\` (the search tree capped at $MEM MiB) played"
    echo "$(basename "$GAME" .kif) over HTTP against the game master's local \`random\` player: start clock"
    echo "$START_S s, play clock $PLAY_S s, cut after $STEPS steps (the master aborts it); the server searched"
    echo "until each deadline on its own turns. $secs s in all. Its resident memory was sampled every"
    echo "$INTERVAL s."
    echo
    echo "| | |"
    echo "|---|---:|"
    echo "| resident memory before the match | $base kB |"
    echo "| largest sample during the match | $max_sample kB |"
    echo "| peak resident memory (VmHWM) | ${peak:-?} kB |"
    echo "| bound: the cap + the memory before the match + 64 MiB | $limit_kb kB |"
    echo "| largest search tree reported (verbose log) | ${tree_max:-?} MiB of $MEM |"
    echo "| searches that ended with the tree full (it stopped growing, the search went on) | $full of $searches |"
    echo "| missed clocks, illegal moves | ${timeouts:-?}, ${illegal:-?} |"
    echo "| server alive at the end | $alive |"
    echo
    echo "Resident memory (kB) over time (every $((INTERVAL * 6)) s):"
    echo
    echo "| s | VmRSS kB |"
    echo "|---:|---:|"
    awk -v k=6 'NR % k == 1 { printf "| %d | %d |\n", $1, $2 }' "$TMP/samples"
    echo
    echo "Result: **$status**"
    if [ -n "$notes" ]; then echo; echo "## Reading"; echo; echo "$notes"; fi
} >"$OUT"
echo "wrote $OUT: $status"
[ "$status" = PASS ]
