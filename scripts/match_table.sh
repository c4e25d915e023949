#!/usr/bin/env bash
# match_table.sh [GGP]: `ggp match` of the mcts player against random on tic-tac-toe
# (MATCHES matches, --swap, play clock 1 s), written with its machine-readable lines and the
# date to docs/matches.md (and printed). GGP defaults to build/ggp (built if missing).
# Environment: MATCHES (default 20), PLAYCLOCK (default 1), STARTCLOCK (default 2),
# SEED (default 1), PLAYERS (default mcts,random), GAME (default games/tictactoe.kif),
# OUT (default docs/matches.md).
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
GGP=${1:-build/ggp}
MATCHES=${MATCHES:-20}
PLAYCLOCK=${PLAYCLOCK:-1}
STARTCLOCK=${STARTCLOCK:-2}
SEED=${SEED:-1}
PLAYERS=${PLAYERS:-mcts,random}
GAME=${GAME:-games/tictactoe.kif}
OUT=${OUT:-docs/matches.md}

GGP=$(ensure_ggp "$GGP") || exit 1

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
[ -n "$cpu" ] || cpu=$(uname -m)
machine="$(nproc) cores, $cpu"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "no commit")
[ -n "$(git status --porcelain -- gdl mcts server cli 2>/dev/null)" ] && commit="$commit + local changes"
date=$(date -u '+%Y-%m-%d %H:%M UTC')

cmd=("$GGP" match "$GAME" --players "$PLAYERS" --startclock "$STARTCLOCK"
     --playclock "$PLAYCLOCK" --matches "$MATCHES" --swap --seed "$SEED")
echo "match_table: ${cmd[*]}" >&2
set +e
out=$("${cmd[@]}")
rc=$?
set -e
lines=$(printf '%s\n' "$out" | grep '^player=' || true)
if [ -z "$lines" ]; then
    echo "match_table: no machine-readable lines from ggp match (exit $rc):" >&2
    printf '%s\n' "$out" >&2
    exit 1
fi
table=$(printf '%s\n' "$out" | grep -v '^player=' || true)

game_name=$(basename "$GAME" .kif)
{
    echo "# Matches"
    echo
    echo "Written by \`scripts/match_table.sh\` on $date ($machine; $commit)."
    echo
    echo "\`ggp match $GAME --players $PLAYERS --startclock $STARTCLOCK --playclock $PLAYCLOCK"
    echo "--matches $MATCHES --swap --seed $SEED\` (exit code $rc): $PLAYERS on $game_name,"
    echo "seats rotated each match. A win is the strictly highest goal, a draw a shared one."
    echo
    echo '```'
    printf '%s\n' "$table"
    echo '```'
    echo
    echo "Machine-readable lines:"
    echo
    echo '```'
    echo "date=$(date -u '+%Y-%m-%dT%H:%M:%SZ') game=$game_name matches=$MATCHES playclock=$PLAYCLOCK startclock=$STARTCLOCK seed=$SEED"
    printf '%s\n' "$lines"
    echo '```'
} >"$OUT"
cat "$OUT"
exit $rc
