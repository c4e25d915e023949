#!/usr/bin/env bash
# parallel_matches.sh [GGP]: which two-thread MCTS plays better? Series of `ggp match` at
# equal clocks, seats alternating: tree-parallel (one shared tree, virtual loss) against
# root-parallel (a tree per thread, root statistics merged), and each against one thread,
# on tic-tac-toe, connect four and a corpus game. Prints a markdown table (W-D-L and the
# mean goal with its 95% interval, of the first player of each pairing) with the load
# average before and after each series: on a shared machine two threads only help when a
# second core is free.
# Environment: MATCHES (default 20), STARTCLOCK (1), PLAYCLOCK (0.4), SEED (1),
# GAMES (default: the three below), PAIRS (default: the three pairings below, as
# "A,B A,B ..."), OUT (default: none; a file to write the table to), GGP_CORPUS.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
GGP=${1:-build/ggp}
MATCHES=${MATCHES:-20}
STARTCLOCK=${STARTCLOCK:-1}
PLAYCLOCK=${PLAYCLOCK:-0.4}
SEED=${SEED:-1}
CORPUS=${GGP_CORPUS:-../shared/gdl-corpus}
GAMES=${GAMES:-"games/connect4.kif $CORPUS/connectFour.kif games/tictactoe.kif"}
TREE=mcts:threads=2:parallel=tree ROOT=mcts:threads=2:parallel=root ONE=mcts:threads=1
PAIRS=${PAIRS:-"$TREE,$ROOT $TREE,$ONE $ROOT,$ONE"}
OUT=${OUT:-}
GGP=$(ensure_ggp "$GGP") || exit 1
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)

load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?"; }
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }

rows=""
for game in $GAMES; do
    [ -f "$game" ] || {
        echo "parallel_matches: no $game" >&2
        continue
    }
    for pair in $PAIRS; do
        a=${pair%,*} b=${pair#*,}
        echo "parallel_matches: $(basename "$game"): $a vs $b ($MATCHES matches)..." >&2
        before=$(load)
        out=$("$GGP" match "$game" --players "$a,$b" --startclock "$STARTCLOCK" \
            --playclock "$PLAYCLOCK" --matches "$MATCHES" --swap --seed "$SEED" 2>/dev/null || true)
        after=$(load)
        line=$(echo "$out" | grep "^player=$a " || true)
        [ -n "$line" ] || {
            echo "parallel_matches: no result for $a vs $b on $game" >&2
            continue
        }
        it_a=$(field iterations "$(echo "$out" | grep "^mcts player=$a ")")
        it_b=$(field iterations "$(echo "$out" | grep "^mcts player=$b ")")
        row="| $(basename "$game") | ${a#mcts:} vs ${b#mcts:} | $(field wins "$line")–$(field draws "$line")–$(field losses "$line") | $(field mean_goal "$line") ± $(field ci95 "$line") | $it_a / $it_b | $before / $after |"
        echo "$row" >&2
        rows="$rows$row"$'\n'
    done
done
table=$(
    echo "\`ggp match GAME --players A,B --startclock $STARTCLOCK --playclock $PLAYCLOCK --matches $MATCHES --swap --seed $SEED\`"
    echo "on $(date -u '+%Y-%m-%d %H:%M UTC') ($commit), $(nproc) cores."
    echo "W–D–L and mean goal (± 95% interval) are A's; iterations summed over the series."
    echo
    echo "| game | A vs B | W–D–L | mean goal of A | iterations A / B | load before / after |"
    echo "|---|---|---|---|---|---|"
    printf '%s' "$rows"
)
[ -z "$OUT" ] || echo "$table" >"$OUT"
echo "$table"
