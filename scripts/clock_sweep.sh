#!/bin/bash
# Clocks on big games, START included: for each game, one match over HTTP on loopback
# between fresh `ggp serve` processes, one per role (default player, or --player KIND) at a short
# start clock (default 2 s) and play clock (default 1 s), cut after STEPS steps (default 6),
# once with an empty engine cache (the servers ground, compile or fall back on the
# interpreter inside START) and once with the cache that first match left (--passes
# "empty warm", the default). The servers and the master run under CPU (default 1:
# `taskset -c CPU`), so the servers share one core with the master: harsher than a
# real match. Records per game and pass, from the master: missed clocks, illegal moves,
# slowest PLAY reply; from the servers' logs: the START replies (ms, and whether past the
# start clock), PLAYs past the bare play clock, answers not proven legal, PLAYs the worker
# reached past their deadline, and how long the worker spent in START ("start: worker
# done", where the build logs it). Prints a markdown table on stdout; logs kept in --logs.
# usage: scripts/clock_sweep.sh [--ggp PATH] [--games "G..."] [--startclock S]
#          [--playclock S] [--steps K] [--player KIND] [--passes "empty warm"]
#          [--cpu N] [--corpus DIR] [--logs DIR]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
GGP=$ROOT/build/ggp
GAMES="amazons amazonsSuicide amazons_10x10 chess chess_200 alexChess slaughter linesOfAction
atariGo_7x7 quad zhadu blobwars kalaha_2009 hexPie laikLee_hex othelloSuicide othelloHoles
checkers checkers-mustjump-torus checkersTorusNoKings SmallDominion2 sudoku twogenerals
gt_two_thirds_6p skirmishNew breakthroughWalls pancakes88 speedChess"
STARTCLOCK=2
PLAYCLOCK=1
STEPS=6
PLAYER=""
PASSES="empty warm"
CPU=1
CORPUS=${GGP_CORPUS:-$ROOT/../shared/gdl-corpus}
LOGS=""
while [ $# -gt 0 ]; do
    case $1 in
    --ggp) GGP=$2; shift 2 ;;
    --games) GAMES=$2; shift 2 ;;
    --startclock) STARTCLOCK=$2; shift 2 ;;
    --playclock) PLAYCLOCK=$2; shift 2 ;;
    --steps) STEPS=$2; shift 2 ;;
    --player) PLAYER=$2; shift 2 ;;
    --passes) PASSES=$2; shift 2 ;;
    --cpu) CPU=$2; shift 2 ;;
    --corpus) CORPUS=$2; shift 2 ;;
    --logs) LOGS=$2; shift 2 ;;
    -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "unexpected argument '$1'" >&2; exit 2 ;;
    esac
done
[ -x "$GGP" ] || { echo "no ggp at $GGP (build it, or give --ggp)" >&2; exit 2; }
GGP=$(cd "$(dirname "$GGP")" && pwd)/$(basename "$GGP")
TMP=$(mktemp -d)
. "$ROOT/tests/integration/http_lib.sh"
trap 'http_cleanup; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
PIN=(taskset -c "$CPU")
REAL=$GGP
printf '#!/bin/sh\nexec taskset -c %s "%s" "$@"\n' "$CPU" "$REAL" >"$TMP/ggp-pinned"
chmod +x "$TMP/ggp-pinned"
SERVE_OPTS=()
[ -z "$PLAYER" ] || SERVE_OPTS=(--player "$PLAYER")
sc_ms=$(awk -v c="$STARTCLOCK" 'BEGIN { print c * 1000 }')
pc_ms=$(awk -v c="$PLAYCLOCK" 'BEGIN { print c * 1000 }')

echo "| game | cache | START ms (each server) | worker in START ms (each server) | missed START | missed PLAYs | PLAYs > ${pc_ms} ms | unproven | reached late | illegal | slowest PLAY ms | engine (first server) |"
echo "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"
status=0
for g in $GAMES; do
    f=$CORPUS/$g.kif
    [ -f "$f" ] || f=$CORPUS/$g.gdl
    [ -f "$f" ] || { echo "no $g in $CORPUS" >&2; continue; }
    cache=$TMP/cache-$g
    mkdir -p "$cache"
    for pass in $PASSES; do
        [ "$pass" = warm ] || rm -rf "${cache:?}"/*
        # one server per role (a server plays one match at a time), their own cache; the
        # master's apart (it plays on the interpreter anyway)
        nroles=$("$REAL" check "$f" | sed -n 's/^roles //p' | tr ' ' '\n' | grep -cvx random)
        players="" names=()
        for k in $(seq 1 "$nroles"); do
            GGP=$TMP/ggp-pinned start_server "s$k" GGP_CACHE="$cache" -- "${SERVE_OPTS[@]}" --seed $((11 * k)) --name "sweep-$k"
            players+="${players:+,}http://127.0.0.1:${PORT[s$k]}"
            names+=("s$k")
        done
        rc=0
        GGP_CACHE=$TMP/master-cache "${PIN[@]}" timeout 900 "$REAL" match "$f" \
            --players "$players" --seed 1 \
            --startclock "$STARTCLOCK" --playclock "$PLAYCLOCK" --max-steps "$STEPS" \
            >"$TMP/m.out" 2>"$TMP/m.err" || rc=$?
        sleep 1
        for s in "${names[@]}"; do kill "${PID[$s]}" 2>/dev/null || true; wait "${PID[$s]}" 2>/dev/null || true; done
        SERVER_PIDS=()
        [ $rc -le 1 ] || { status=1; echo "$g: ggp match exited $rc: $(tail -2 "$TMP/m.err")" >&2; }
        if [ -n "$LOGS" ]; then
            mkdir -p "$LOGS"
            for s in "${names[@]}"; do cp "$TMP/$s.log" "$LOGS/$g-$pass-$s.log"; done
            cp "$TMP/m.err" "$LOGS/$g-$pass-master.log"
        fi
        t=0 i=0 ms=0
        while read -r line; do
            t=$((t + $(sed -n 's/.* timeouts=\([0-9]*\).*/\1/p' <<<"$line")))
            i=$((i + $(sed -n 's/.* illegal=\([0-9]*\).*/\1/p' <<<"$line")))
            m=$(sed -n 's/.* slowest_move_ms=\([0-9]*\).*/\1/p' <<<"$line")
            [ "$m" -le "$ms" ] || ms=$m
        done < <(grep '^player=' "$TMP/m.out" || true)
        st=() wk=() missed_start=0
        logs=()
        for s in "${names[@]}"; do
            logs+=("$TMP/$s.log")
            x=$(sed -n 's/.* cmd=start ms=\([0-9]*\).*/\1/p' "$TMP/$s.log" | head -1)
            st+=("${x:-?}")
            [ -n "$x" ] && [ "$x" -le "$sc_ms" ] || missed_start=$((missed_start + 1))
            y=$(sed -n 's/.* start: worker done after \([0-9]*\) ms.*/\1/p' "$TMP/$s.log" | head -1)
            wk+=("${y:--}")
        done
        grep -q 'did not answer START' "$TMP/m.err" && missed_start=$((missed_start + $(grep -c 'did not answer START' "$TMP/m.err")))
        over=$(cat "${logs[@]}" | sed -n 's/.* cmd=play ms=\([0-9]*\).*/\1/p' | awk -v c="$pc_ms" '$1 > c' | wc -l)
        unproven=$(cat "${logs[@]}" | grep -c 'no legal move proven in time\|no legal move is known' || true)
        late=$(cat "${logs[@]}" | grep -c 'past its deadline (already answered)' || true)
        eng=$(grep -m1 -E '^engine: |engine ready after|using the' "$TMP/s1.log" | sed 's/^engine: [^ ]*: *//; s/^engine: //' | cut -c1-90 || true)
        st_=$(IFS=,; echo "${st[*]}") wk_=$(IFS=,; echo "${wk[*]}")
        echo "| $g | $pass | ${st_//,/, } | ${wk_//,/, } | $missed_start | $t | $over | $unproven | $late | $i | $ms | ${eng:--} |"
    done
done
exit $status
