#!/usr/bin/env bash
# play_games.sh GGP GAME [MATCHES]
#
# A project game must validate (`GGP check GAME`) and play MATCHES (default 20) seeded
# random matches to the end (`GGP trace GAME --seed 1 --matches MATCHES`, one process: a
# process per match would load and ground the game twenty times): every match ends with
# `end`, its last step is terminal, and every role has a numeric goal value in 0..100. The
# first match is also replayed from its moves (`--moves`) and must be identical; the first
# match played alone (`--matches 1`) must be the first of the twenty (the same seed, the
# same trace); the interpreter, the ground and the compiled engine print the same first
# three matches.

set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 GGP GAME [MATCHES]" >&2
    exit 2
fi
GGP=$1 GAME=$2 N=${3:-20}
name=$(basename "$GAME")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
    echo "games: FAIL $name: $*"
    exit 1
}

"$GGP" check "$GAME" >"$tmp/check" 2>&1 || fail "ggp check rejects it: $(head -3 "$tmp/check")"
grep -q "^$GAME: valid" "$tmp/check" || fail "ggp check did not say valid"
nroles=$(awk '$1 == "roles" { print NF - 1 }' "$tmp/check")
[ "${nroles:-0}" -ge 1 ] || fail "ggp check printed no roles"

steps=0
"$GGP" trace "$GAME" --seed 1 --matches "$N" >"$tmp/all" 2>"$tmp/err" ||
    fail "ggp trace --seed 1 --matches $N failed: $(head -3 "$tmp/err")"
# match K (from 1) into trace.K: from its `game` line to the next one
awk -v dir="$tmp" '/^game / { k++ } { print > (dir "/trace." k) }' "$tmp/all"
played=$(ls "$tmp"/trace.* 2>/dev/null | wc -l)
[ "$played" -eq "$N" ] || fail "$played matches printed, $N asked"
for s in $(seq 1 "$N"); do
    t=$tmp/trace.$s
    awk -v n="$nroles" '
        $1 == "step" { step = $2 }
        $1 == "terminal" { term = $2 }
        $1 == "goal" { goals++; if ($3 !~ /^[0-9]+$/ || $3 > 100) bad = bad " goal " $2 "=" $3 }
        $1 == "end" { ends++ }
        END {
            if (ends != 1) { print "no end line"; exit 1 }
            if (term != "yes") { print "last step not terminal"; exit 1 }
            if (goals != n) { print goals " goals for " n " roles"; exit 1 }
            if (bad != "") { print "bad goal values:" bad; exit 1 }
            print step
        }' "$t" >"$tmp/res" || fail "match $s: $(cat "$tmp/res")"
    steps=$((steps + $(cat "$tmp/res")))
done

# Every engine prints the same first three matches, byte for byte.
first=$((N < 3 ? N : 3))
cat $(seq -f "$tmp/trace.%g" 1 "$first") >"$tmp/first"
for engine in interp ground compiled; do
    "$GGP" trace "$GAME" --seed 1 --matches "$first" --engine "$engine" >"$tmp/engine" 2>/dev/null ||
        fail "ggp trace --engine $engine failed"
    cmp -s "$tmp/engine" "$tmp/first" || fail "--engine $engine prints other matches"
done

# Replay and determinism on the first match.
grep '^does ' "$tmp/trace.1" | cut -c6- >"$tmp/moves"
"$GGP" trace "$GAME" --moves "$tmp/moves" >"$tmp/replay" 2>"$tmp/err" ||
    fail "--moves replay failed: $(head -3 "$tmp/err")"
cmp -s "$tmp/replay" "$tmp/trace.1" || fail "--moves replay differs from the first match"
"$GGP" trace "$GAME" --seed 1 --matches 1 >"$tmp/again" 2>/dev/null
cmp -s "$tmp/again" "$tmp/trace.1" || fail "the first match alone differs from the first of $N"

echo "games: ok $name: valid, $N random matches played to the end ($steps steps), replay identical, engines agree"
