#!/usr/bin/env bash
# perft.sh GGP GAMES_DIR PERFT_FILE [GAME]
#
# Compares `GGP perft GAME --depth D` with the reference counts of PERFT_FILE (lines
# `GAMEFILE DEPTH COUNT`, '#' comments; see tests/perft.txt). `ggp perft` prints every
# depth 1..D in one run, so each game is searched once, to its deepest listed depth.
# With GAME, only that game's lines are checked. Prints one line per game; exits 1 on
# any difference.

set -u
if [ $# -lt 3 ]; then
    echo "usage: $0 GGP GAMES_DIR PERFT_FILE [GAME]" >&2
    exit 2
fi
GGP=$1 GAMES=$2 FILE=$3 ONLY=${4:-}

games=$(sed 's/#.*//' "$FILE" | awk 'NF == 3 { print $1 }' | awk '!seen[$0]++')
[ -n "$ONLY" ] && games=$ONLY
status=0 checked=0
for game in $games; do
    expect=$(sed 's/#.*//' "$FILE" | awk -v g="$game" 'NF == 3 && $1 == g { print "depth=" $2 " count=" $3 }')
    if [ -z "$expect" ]; then
        echo "perft: no reference counts for $game in $FILE" >&2
        status=1
        continue
    fi
    max=$(echo "$expect" | sed 's/depth=\([0-9]*\).*/\1/' | sort -n | tail -1)
    start=$(date +%s%N)
    if ! out=$("$GGP" perft "$GAMES/$game" --depth "$max" 2>&1); then
        echo "perft: FAIL $game: '$GGP perft $GAMES/$game --depth $max' failed:"
        echo "$out" | head -5 | sed 's/^/    /'
        status=1
        continue
    fi
    bad=0
    while read -r line; do
        checked=$((checked + 1))
        d=${line%% *}
        got=$(echo "$out" | grep -x "$d count=[0-9]*")
        if [ "$got" != "$line" ]; then
            echo "perft: FAIL $game: expected '$line', got '${got:-nothing}'"
            bad=1
        fi
    done <<<"$expect"
    ms=$((($(date +%s%N) - start) / 1000000))
    if [ $bad = 0 ]; then
        printf 'perft: ok   %-18s depth %2d  (%d.%01d s)\n' "$game" "$max" $((ms / 1000)) $((ms % 1000 / 100))
    else
        status=1
    fi
done
echo "perft: $checked counts checked, $([ $status = 0 ] && echo "all equal" || echo "DIFFERENCES")"
exit $status
