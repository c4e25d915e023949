#!/bin/bash
# Full matches over HTTP: our game master (`ggp match`) against two `ggp serve` processes on
# loopback, for tic-tac-toe (GDL) and GDL-II games. Every move must arrive in time and be
# legal, and every match's trace must equal the local replay of its moves by `ggp trace
# --moves`. The clocks are the hang guard of http_lib.sh, bounds only: the players' work
# per move is bounded (a loaded machine makes them answer later, not miss a clock). Each
# command is bounded by a timeout; the servers are killed on exit.
# usage: http_match.sh GGP SOURCE_DIR
set -euo pipefail
GGP=$1
ROOT=$2
TMP=$(mktemp -d)
. "$ROOT/tests/integration/http_lib.sh"
trap 'http_cleanup; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
command -v curl >/dev/null || { echo "curl is needed"; exit 77; }

start_server a -- --player random --seed 11 --name alpha
start_server b -- --player legal --seed 12 --name beta
# (playouts=4: its work per move is bounded; the others answer at once)
start_server c -- --player deduce:playouts=4 --seed 13 --name gamma
A=http://127.0.0.1:${PORT[a]}
B=http://127.0.0.1:${PORT[b]}
C=http://127.0.0.1:${PORT[c]}

# run_matches NAME GAME PLAYERS N: plays N matches; checks the summary and every trace.
run_matches() {
    local name=$1 game=$2 players=$3 n=$4 k f
    timeout $((20 * HTTP_GUARD)) "$GGP" match "$game" --players "$players" --matches "$n" \
        --swap --seed 7 --startclock "$HTTP_GUARD" --playclock "$HTTP_GUARD" --trace \
        >"$TMP/$name.out" 2>"$TMP/$name.err" ||
        fail "$name: ggp match failed: $(cat "$TMP/$name.err")"
    while read -r line; do
        echo "$name: $line"
        case "$line" in *" matches=$n "*) ;; *) fail "$name: not all matches counted: $line" ;; esac
        case "$line" in *" timeouts=0 illegal=0") ;; *) fail "$name: replaced moves: $line" ;; esac
    done < <(grep '^player=' "$TMP/$name.out")
    awk -v dir="$TMP" -v name="$name" '
        /^game / { k++; f = dir "/" name "." k ".trace" }
        f { print > f }
        /^end$/ { close(f); f = "" }' "$TMP/$name.out"
    for k in $(seq 1 "$n"); do
        f=$TMP/$name.$k.trace
        [ -s "$f" ] || fail "$name: no trace for match $k"
        grep '^does ' "$f" | sed 's/^does //' >"$f.moves"
        "$GGP" trace "$game" --moves "$f.moves" >"$f.replay" || fail "$name: replay of match $k failed"
        diff "$f" "$f.replay" >/dev/null || fail "$name: match $k differs from its replay: $(diff "$f" "$f.replay" | head -5)"
    done
    echo "$name: $n matches, traces equal to their replays"
}

run_matches ttt "$ROOT/games/tictactoe.kif" "$A,$B" 4
run_matches guess "$ROOT/games/guess.kif" "$A" 3
run_matches guess_legal "$ROOT/games/guess.kif" "$B" 1
run_matches mixed "$ROOT/games/tictactoe.kif" "$A,legal" 2
[ -f "$ROOT/games/killer_small.kif" ] && run_matches killer "$ROOT/games/killer_small.kif" "$A,$B,random" 2
# the deducing player over the protocol: its belief comes from the percepts it is sent
[ -f "$ROOT/games/killer_small.kif" ] && run_matches killer_deduce "$ROOT/games/killer_small.kif" "$C,random,random" 2
CORPUS=${GGP_CORPUS:-$ROOT/../shared/gdl-corpus}
for g in rockpaperscissors MontyHall; do
    [ -f "$CORPUS/$g.gdl" ] || continue
    case $g in rockpaperscissors) p="$A,$B" ;; *) p="$B" ;; esac
    run_matches "$g" "$CORPUS/$g.gdl" "$p" 2
done

# the servers logged one line per request, none failed, and all still answer
for s in a b c; do
    alive "$s" || fail "server $s is not answering"
    n=$(grep -c ' cmd=' "$TMP/$s.log" || true)
    [ "$n" -gt 0 ] || fail "server $s logged no request"
    if grep ' cmd=' "$TMP/$s.log" | grep -v ' status=200' >/dev/null; then
        fail "server $s answered with an error: $(grep ' cmd=' "$TMP/$s.log" | grep -v ' status=200' | head -3)"
    fi
    echo "server $s: $n requests logged, all 200"
done
echo "PASS"
