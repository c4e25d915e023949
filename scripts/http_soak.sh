#!/bin/bash
# Soak test of the HTTP player: N back-to-back matches (default 1000) over HTTP on loopback
# between three `ggp serve --player random` processes (a, b, c), driven by `ggp match` in
# batches of 10, cycling through a mix: tic-tac-toe and nim (GDL, turn-taking),
# rock-paper-scissors (simultaneous moves), guess the number and the 10-card killer game
# (GDL-II, percepts, the master's random role), and tic-tac-toe batches cut short by
# --max-steps 3 (the master sends ABORT mid-match). Every VANISH matches (default 200) the
# game master disappears: START and a first PLAY by hand, then silence; the players must
# give the match up by themselves and accept the next START (start clock + 2 play clocks
# + 30 s, docs/http.md), and the time that took is recorded.
# Records missed clocks and illegal moves (must be none), HTTP errors, that the servers
# survive, and their resident memory (VmRSS from /proc) after every batch; writes
# docs/http_soak.md. Acceptance: no missed clock, no crash, flat memory (at most 1 MiB of
# growth per server from the end of the first cycle of games to the end).
# usage: scripts/http_soak.sh [--ggp PATH] [--matches N] [--vanish N] [--out FILE]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
GGP=$ROOT/build/ggp
MATCHES=1000
VANISH=200
OUT=$ROOT/docs/http_soak.md
while [ $# -gt 0 ]; do
    case $1 in
    --ggp) GGP=$2; shift 2 ;;
    --matches) MATCHES=$2; shift 2 ;;
    --vanish) VANISH=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h | --help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "unexpected argument '$1'" >&2; exit 2 ;;
    esac
done
[ -x "$GGP" ] || { echo "no ggp at $GGP (build it, or give --ggp)" >&2; exit 2; }
GGP=$(cd "$(dirname "$GGP")" && pwd)/$(basename "$GGP")
TMP=$(mktemp -d)
. "$ROOT/tests/integration/http_lib.sh"
trap 'http_cleanup; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM

STARTCLOCK=2
PLAYCLOCK=1
BATCH=10
SERVERS="a b c"
start_server a -- --player random --seed 101 --name soak-a
start_server b -- --player random --seed 202 --name soak-b
start_server c -- --player random --seed 303 --name soak-c
A=http://127.0.0.1:${PORT[a]}
B=http://127.0.0.1:${PORT[b]}
C=http://127.0.0.1:${PORT[c]}
G=$ROOT/games
# The cycle of batches: "GAME PLAYERS [match options]".
KINDS=(
    "tictactoe $A,$B --swap"
    "nim $A,$B --swap"
    "simultaneous $A,$B --swap"
    "guess $C"
    "killer_small $A,$B,$C --swap"
    "tictactoe $A,$B --swap --max-steps 3"
)
WARMUP=$((${#KINDS[@]} * BATCH)) # memory is compared from the end of the first cycle

rows=()
declare -A first last rss0
total_timeouts=0 total_illegal=0 slowest=0 played=0 aborted=0 batches=0 vanished=0
recoveries=()
status=PASS
t0=$(date +%s)
for s in $SERVERS; do rss0[$s]=$(rss_kb "${PID[$s]}"); done

# A batch of n matches of kind k; adds to the totals.
batch() {
    local k=$1 n=$2 game players opts line t i ms rc=0
    read -r game players opts <<<"${KINDS[$k]} "
    # shellcheck disable=SC2086
    timeout 300 "$GGP" match "$G/$game.kif" --players "$players" --matches "$n" $opts \
        --seed $((played + 1)) --startclock $STARTCLOCK --playclock $PLAYCLOCK \
        >"$TMP/batch.out" 2>"$TMP/batch.err" || rc=$?
    # --max-steps batches end with exit 1 (the matches were aborted); anything else fails
    if [ $rc -ne 0 ] && ! { [[ $opts == *max-steps* ]] && [ $rc -eq 1 ]; }; then
        status=FAIL
        echo "ggp match ($game) exited $rc: $(tail -3 "$TMP/batch.err")" >&2
    fi
    if [[ $opts == *max-steps* ]]; then aborted=$((aborted + n)); fi
    while read -r line; do
        t=$(sed -n 's/.* timeouts=\([0-9]*\).*/\1/p' <<<"$line")
        i=$(sed -n 's/.* illegal=\([0-9]*\).*/\1/p' <<<"$line")
        ms=$(sed -n 's/.* slowest_move_ms=\([0-9]*\).*/\1/p' <<<"$line")
        total_timeouts=$((total_timeouts + t))
        total_illegal=$((total_illegal + i))
        if [ "$ms" -gt "$slowest" ]; then slowest=$ms; fi
    done < <(grep '^player=' "$TMP/batch.out")
}

# The game master disappears after START and the first PLAY; waits until a and b have given
# the match up (INFO says available again) and records how long that took.
vanish() {
    local id=soak.vanish.$played rules s waited=0
    rules=$(rules_of "$G/tictactoe.kif")
    for s in a b; do
        post $s "( START $id $([ $s = a ] && echo xplayer || echo oplayer) ($rules) $STARTCLOCK $PLAYCLOCK)" >/dev/null
    done
    for s in a b; do post $s "( PLAY $id NIL )" >/dev/null; done
    local t_gone=$SECONDS
    while post a '( INFO )' | grep -q busy || post b '( INFO )' | grep -q busy; do
        sleep 1
        waited=$((SECONDS - t_gone))
        [ $waited -lt 120 ] || { status=FAIL; echo "players still busy 120 s after the master vanished" >&2; break; }
    done
    recoveries+=("$((SECONDS - t_gone))")
    vanished=$((vanished + 1))
    played=$((played + 1))
}

while [ "$played" -lt "$MATCHES" ]; do
    if [ "$VANISH" -gt 0 ] && [ "$played" -gt 0 ] && [ $((played / VANISH)) -gt "$vanished" ]; then
        vanish
        continue
    fi
    n=$((MATCHES - played < BATCH ? MATCHES - played : BATCH))
    batch $((batches % ${#KINDS[@]})) "$n"
    batches=$((batches + 1))
    played=$((played + n))
    row="| $played | $(read -r g _ <<<"${KINDS[$(((batches - 1) % ${#KINDS[@]}))]}"; echo "$g")"
    for s in $SERVERS; do
        kill -0 "${PID[$s]}" 2>/dev/null || { status=FAIL; echo "server $s died" >&2; }
        last[$s]=$(rss_kb "${PID[$s]}" || echo 0)
        if [ "$played" -le "$WARMUP" ]; then first[$s]=${last[$s]}; fi
        row="$row | ${last[$s]}"
    done
    rows+=("$row | $total_timeouts | $total_illegal |")
    [ $((batches % 10)) -ne 0 ] || echo "after $played matches: rss a=${last[a]} b=${last[b]} c=${last[c]} kB, timeouts=$total_timeouts illegal=$total_illegal, vanished=$vanished"
    [ "$status" = PASS ] || break
done
secs=$(($(date +%s) - t0))
requests=0 errors=0
for s in $SERVERS; do
    requests=$((requests + $(grep -c ' cmd=' "$TMP/$s.log" || true)))
    errors=$((errors + $(grep ' cmd=' "$TMP/$s.log" | grep -vc ' status=200' || true)))
done
[ "$total_timeouts" -eq 0 ] && [ "$total_illegal" -eq 0 ] && [ "$errors" -eq 0 ] || status=FAIL

memory=flat
growth=""
for s in $SERVERS; do
    g=$((${last[$s]:-0} - ${first[$s]:-0}))
    growth="$growth $s ${g} kB,"
    [ "$g" -le 1024 ] || { memory=GROWING; status=FAIL; }
done

mkdir -p "$(dirname "$OUT")"
{
    echo "# HTTP soak test"
    echo
    echo "Written by \`scripts/http_soak.sh --matches $MATCHES --vanish $VANISH\` on $(date -u '+%Y-%m-%d %H:%M UTC') ($(uname -srm), $(nproc) cores, load average at the end $(cut -d' ' -f1-3 /proc/loadavg))."
    echo
    echo "$played back-to-back matches over HTTP on loopback between three \`ggp serve --player random\`"
    echo "processes (a, b, c), driven by \`ggp match\` in batches of $BATCH, start clock ${STARTCLOCK} s, play"
    echo "clock ${PLAYCLOCK} s, cycling through: tic-tac-toe and nim (a, b; GDL), rock-paper-scissors"
    echo "(a, b; simultaneous moves), guess the number (c; GDL-II, the master plays \`random\`), the"
    echo "10-card killer game (a, b, c; GDL-II), and tic-tac-toe cut after 3 steps (the master sends"
    echo "ABORT mid-match: $aborted matches). $vanished times (every $VANISH matches) the game master"
    echo "vanished after START and the first PLAY; the players gave the match up by themselves"
    echo "after ${recoveries[*]:-} s (start clock + 2 play clocks + 30 s is 34 s) and took the next START."
    echo "$requests requests in $secs s."
    echo
    echo "Resident memory (VmRSS, kB) of each server after every batch, and the replaced moves"
    echo "counted by the game master so far (every fifth batch shown; all are checked):"
    echo
    echo "| matches | game | rss a | rss b | rss c | missed clocks | illegal moves |"
    echo "|---:|---|---:|---:|---:|---:|---:|"
    echo "| 0 (started) | | ${rss0[a]} | ${rss0[b]} | ${rss0[c]} | 0 | 0 |"
    for i in "${!rows[@]}"; do
        if [ $((i % 5)) -eq 4 ] || [ "$i" -eq $((${#rows[@]} - 1)) ]; then echo "${rows[$i]}"; fi
    done
    echo
    echo "- Missed clocks: $total_timeouts; illegal or unparsable moves: $total_illegal; HTTP errors: $errors."
    echo "- Slowest move seen by the game master: $slowest ms (play clock $((PLAYCLOCK * 1000)) ms)."
    echo "- All servers alive at the end: $([ "$status" = PASS ] && echo yes || echo see status)."
    echo "- Memory from the end of the first cycle ($WARMUP matches) to the last sample:${growth%,}: $memory"
    echo "  (criterion: at most 1024 kB growth per server)."
    echo
    echo "Result: **$status**"
} >"$OUT"
echo "wrote $OUT: $status"
[ "$status" = PASS ]
