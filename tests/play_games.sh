#!/usr/bin/env bash
# play_games.sh GGP GAME [MATCHES]
#
# A project game must validate (`GGP check GAME`) and play MATCHES (default 20) seeded
# random matches to the end (`GGP trace GAME --seed S --matches 1`, S = 1..MATCHES): every
# trace ends with `end`, the last step is terminal, and every role has a numeric goal
# value in 0..100. The first trace is also replayed from its moves (`--moves`) and must be
# identical, running the same seed twice must print the same trace, and the interpreter,
# the ground and the compiled engine print the same first three traces.

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
for s in $(seq 1 "$N"); do
    t=$tmp/trace.$s
    "$GGP" trace "$GAME" --seed "$s" --matches 1 >"$t" 2>"$tmp/err" ||
        fail "seed $s: ggp trace failed: $(head -3 "$tmp/err")"
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
        }' "$t" >"$tmp/res" || fail "seed $s: $(cat "$tmp/res")"
    steps=$((steps + $(cat "$tmp/res")))
done

# Every engine prints the same traces, byte for byte, on the first three seeds.
for s in 1 2 3; do
    [ -f "$tmp/trace.$s" ] || continue
    for engine in interp ground compiled; do
        "$GGP" trace "$GAME" --seed "$s" --matches 1 --engine "$engine" >"$tmp/engine" 2>/dev/null ||
            fail "seed $s: ggp trace --engine $engine failed"
        cmp -s "$tmp/engine" "$tmp/trace.$s" || fail "seed $s: --engine $engine prints another trace"
    done
done

# Replay and determinism on the first match.
grep '^does ' "$tmp/trace.1" | cut -c6- >"$tmp/moves"
"$GGP" trace "$GAME" --moves "$tmp/moves" >"$tmp/replay" 2>"$tmp/err" ||
    fail "--moves replay failed: $(head -3 "$tmp/err")"
cmp -s "$tmp/replay" "$tmp/trace.1" || fail "--moves replay differs from the seed 1 trace"
"$GGP" trace "$GAME" --seed 1 --matches 1 >"$tmp/again" 2>/dev/null
cmp -s "$tmp/again" "$tmp/trace.1" || fail "seed 1 twice gives two different traces"

echo "games: ok $name: valid, $N random matches played to the end ($steps steps), replay identical, engines agree"
