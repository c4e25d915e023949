#!/usr/bin/env bash
# engine_diff.sh GGP ENGINE GAME_OR_DIR... : the differential test of a ground engine.
#
# For every game (a .kif/.gdl file, or every such file of a directory) that grounds,
# `GGP ground GAME --check N --engine ENGINE` plays N random matches on that engine and
# on the interpreter side by side and must find no difference. A game that does not
# ground fails unless tests/corpus_noground.txt lists it (then it is only listed: there is
# nothing to compare); a listed game that grounds fails too (take it off the list). Listed
# games try within GGP_NOGROUND_WORK join steps (default 5 million) and 500,000 atoms, the
# others within GGP_GROUND_WORK: whether a game grounds is decided by counts of work, never
# by time. One
# the validator rejects is corpus_check's business; a difference, a crash or a time-out
# fails.
#
# Environment:
#   GGP_DIFF_MATCHES  random matches per game (default 20)
#   GGP_DIFF_TIMEOUT  seconds per game, a hang guard (default 900)
#   GGP_DIFF_JOBS     games at once (default 2)
#   GGP_DIFF_SUBSET   a file of game names (one per line, '#' comments): only those run
#   GGP_CORPUS_SHARD  K/N: only shard K of N of those games (tests/shard.sh)
# Prints one line per failing game, then a summary; exits 0 when no game fails, 77 (CTest's
# skip code) when none of the places given exists.
set -u

NOGROUND=$(dirname "$0")/corpus_noground.txt
is_noground() { [ -f "$NOGROUND" ] && sed 's/#.*//' "$NOGROUND" | awk '{print $1}' | grep -qxF "$1"; }

if [ "${1:-}" = "--one" ]; then
    GGP=$2 ENGINE=$3 GAME=$4
    listed=0
    is_noground "$(basename "$GAME")" && listed=1 && export GGP_GROUND_WORK=${GGP_NOGROUND_WORK:-5000000} GGP_GROUND_ATOMS=500000
    # a game the validator rejects is corpus_check's business (expected_rejections.txt)
    if ! "$GGP" check "$GAME" >/dev/null 2>&1; then
        echo "REJECTED $(basename "$GAME")"
        exit 0
    fi
    out=$(timeout -k 5 "${GGP_DIFF_TIMEOUT:-900}" "$GGP" ground "$GAME" \
        --check "${GGP_DIFF_MATCHES:-20}" --engine "$ENGINE" 2>&1)
    rc=$?
    base=$(basename "$GAME")
    if [ $rc -eq 0 ] && [ $listed = 1 ]; then
        echo "FAIL $base: grounds now; take it off $(basename "$NOGROUND")"
    elif [ $rc -eq 0 ]; then
        echo "PASS $base: $(echo "$out" | tail -1)"
    elif [ $rc -eq 1 ] && echo "$out" | head -1 | grep -qE '^[^ ]+:[0-9]+:[0-9]+: '; then
        echo "REJECTED $base" # the loader's located diagnostics: not a game to compare
    elif echo "$out" | grep -q "does not ground" && [ $listed = 1 ]; then
        echo "NOGROUND $base: $(echo "$out" | tail -1)"
    elif echo "$out" | grep -q "does not ground"; then
        echo "FAIL $base: does not ground, and $(basename "$NOGROUND") does not list it: $(echo "$out" | tail -1)"
    elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        echo "FAIL $base: timed out"
    else
        echo "FAIL $base (exit $rc): $(echo "$out" | tail -2 | tr '\n' ' ')"
    fi
    exit 0
fi

if [ $# -lt 3 ]; then
    echo "usage: $0 GGP ENGINE GAME_OR_DIR..." >&2
    exit 2
fi
GGP=$(realpath "$1") ENGINE=$2
shift 2
list=$(mktemp)
trap 'rm -f "$list" "$list.all" "$list.out"' EXIT
found=0
for place in "$@"; do
    [ -e "$place" ] || continue
    found=1
    if [ -d "$place" ]; then
        find "$place" -maxdepth 1 \( -name '*.kif' -o -name '*.gdl' \) | sort
    else
        echo "$place"
    fi
done | while read -r game; do
    name=$(basename "$game")
    name=${name%.*}
    if [ -n "${GGP_DIFF_SUBSET:-}" ] && ! sed 's/#.*//' "$GGP_DIFF_SUBSET" | grep -qxF "$name"; then
        continue
    fi
    echo "$game"
done >"$list.all"
. "$(dirname "$0")/shard.sh"
shard_filter <"$list.all" >"$list" || exit 2
for place in "$@"; do [ -e "$place" ] && found=1; done
if [ $found = 0 ]; then
    echo "engine differential: none of $* exists"
    exit 77
fi
start=$(date +%s)
tr '\n' '\0' <"$list" | xargs -0 -P "${GGP_DIFF_JOBS:-2}" -I{} bash "$0" --one "$GGP" "$ENGINE" {} >"$list.out"
grep -E '^FAIL' "$list.out"
pass=$(grep -c '^PASS' "$list.out") noground=$(grep -c '^NOGROUND' "$list.out")
rejected=$(grep -c '^REJECTED' "$list.out")
fail=$(grep -c '^FAIL' "$list.out")
[ "$noground" -gt 0 ] && echo "not grounded (listed in $(basename "$NOGROUND"); the interpreter plays them):$(grep '^NOGROUND' "$list.out" | awk '{printf " %s", $2}')"
echo "engine differential ($ENGINE${GGP_CORPUS_SHARD:+, shard $GGP_CORPUS_SHARD}): $(wc -l <"$list") games, $pass agree, $noground do not ground, $rejected rejected by the validator, $fail fail, $(($(date +%s) - start)) s"
[ "$fail" -eq 0 ]
