#!/usr/bin/env bash
# engine_matches.sh [GGP]: mcts on the fastest engine with both cores (mcts:threads=2,
# engine auto) against mcts on the interpreter (mcts:engine=interp), equal clocks, seats
# alternating, on our three benchmark games and three corpus games; the table goes to
# docs/engine_matches.md (and is printed).
# Environment: MATCHES (default 8), STARTCLOCK (2), PLAYCLOCK (0.2), SEED (1),
# GAMES (default: the six below), OUT (docs/engine_matches.md), GGP_CORPUS.
set -eu
case ${1:-} in -h | --help) sed '1d; /^[^#]/,$d' "$0"; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
. scripts/lib.sh
GGP=${1:-build/ggp}
MATCHES=${MATCHES:-8}
STARTCLOCK=${STARTCLOCK:-2}
PLAYCLOCK=${PLAYCLOCK:-0.2}
SEED=${SEED:-1}
CORPUS=${GGP_CORPUS:-../shared/gdl-corpus}
GAMES=${GAMES:-"games/tictactoe.kif games/connect4.kif games/breakthrough.kif $CORPUS/nineBoardTicTacToe.kif $CORPUS/dotsAndBoxes.kif $CORPUS/pawnWhopping.kif"}
OUT=${OUT:-docs/engine_matches.md}
GGP=$(ensure_ggp "$GGP") || exit 1

NEW=mcts:threads=2 OLD=mcts:engine=interp
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
rows=""
for game in $GAMES; do
    [ -f "$game" ] || { echo "engine_matches: no $game" >&2; continue; }
    echo "engine_matches: $(basename "$game") ($MATCHES matches)..." >&2
    out=$("$GGP" match "$game" --players "$NEW,$OLD" --startclock "$STARTCLOCK" \
        --playclock "$PLAYCLOCK" --matches "$MATCHES" --swap --seed "$SEED" 2>/dev/null || true)
    line=$(echo "$out" | grep "^player=$NEW " || true)
    [ -n "$line" ] || { echo "engine_matches: no result for $game" >&2; continue; }
    f() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }
    # an mcts player's counters are an 'mcts player=' line ('lbs player=' before 769c58b)
    it_new=$(f iterations "$(echo "$out" | grep -E "^(mcts|lbs) player=$NEW ")")
    it_old=$(f iterations "$(echo "$out" | grep -E "^(mcts|lbs) player=$OLD ")")
    ratio=$(awk -v a="$it_new" -v b="$it_old" 'BEGIN { if (b > 0) printf "%.0f", a / b; else print "-" }')
    rows="$rows| $(basename "$game") | $(f wins "$line")–$(f draws "$line")–$(f losses "$line") | $(f mean_goal "$line") ± $(f ci95 "$line") | $it_new / $it_old (${ratio}x) | $(f slowest_move_ms "$line") / $(f slowest_move_ms "$(echo "$out" | grep "^player=$OLD ")") |"$'\n'
done
{
    echo "# mcts on the ground engine (two threads) against mcts on the interpreter"
    echo
    echo "Produced by \`scripts/engine_matches.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "($(git rev-parse --short HEAD 2>/dev/null)); load average before: $load (a shared machine)."
    echo "\`ggp match GAME --players $NEW,$OLD --startclock $STARTCLOCK --playclock $PLAYCLOCK"
    echo "--matches $MATCHES --swap --seed $SEED\`: equal clocks, seats alternating. W–D–L and the"
    echo "mean goal (± 95% interval) are those of \`$NEW\`; iterations are summed over the matches."
    echo
    echo "| game | W–D–L | mean goal | iterations new / interp | slowest move ms new / interp |"
    echo "|---|---|---|---|---|"
    printf '%s' "$rows"
} >"$OUT"
cat "$OUT"
