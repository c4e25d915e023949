#!/usr/bin/env bash
# accuracy.sh GGP GAMES_DIR: a smoke test of `ggp accuracy` (the rollout-accuracy
# experiment) on every tic-tac-toe position with 1 and 1,000 rollouts (every position, so
# that the error means are steady enough to compare). Checks that every kind of row
# is there and that the figures mean something: more rollouts lower the error, rollouts
# stopped by the backward-search formulas beat plain ones (they do on tic-tac-toe; those
# stopped by the hook's cheap formulas are no worse), the
# exact-solver bound is at least as good, Z3 confirmed hits and never disagreed, and no
# hit contradicts the exact value; the decision-diagram hook (bdd: wins and losses of the
# whole game's fixpoints) errs no more than every formula, and with values (bddval: the
# proven draws too) tic-tac-toe is solved, every rollout stopped at once at the exact value;
# and that the interpreter and the ground engine give the
# same rows for a seed. Prints one line per failed check; exits 1 on any.
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 GGP GAMES_DIR" >&2
    exit 2
fi
GGP=$1 GAMES=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
failed=0
bad() {
    failed=$((failed + 1))
    echo "accuracy: FAIL: $*"
}

"$GGP" accuracy "$GAMES/tictactoe.kif" --positions all --rollouts 1,1000 --mcts-iters 10,100 \
    --mcts-positions 10 --budget 0 --steps 4 --cost-seconds 0.2 --seed 7 >"$out"
rc=$?
[ "$rc" -eq 0 ] || bad "ggp accuracy exited $rc"

# field KIND KEY=VALUE... FIELD
field() {
    local kind=$1 f=${!#}
    shift
    awk -v kind="$kind" -v field="$f" -v conds="${*:1:$#-1}" '$1 == kind {
        ok = 1; n = split(conds, c, " ")
        for (k = 1; k <= n; k++) { hit = 0; for (i = 2; i <= NF; i++) if ($i == c[k]) hit = 1; if (!hit) ok = 0 }
        if (ok) for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == field) { print kv[2]; exit } } }' "$out"
}
less() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && b != "" && a + 0 < b + 0) }'; }

for kind in positions mae rollout mcts cost check bdd bddcheck; do
    grep -q "^$kind game=tictactoe " "$out" || bad "no '$kind' row"
done
[ "$(grep -c "^mae " "$out")" -eq 12 ] || bad "expected 12 mae rows (6 modes x 2 counts)"
[ "$(grep -c "^mcts " "$out")" -eq 24 ] || bad "expected 24 mcts rows (2 sets x 6 modes x 2 counts)"
[ "$(field positions count)" = 4520 ] || bad "positions count is not 4520 (every non-terminal state)"
for mode in plain lbs hook ideal bdd; do
    less "$(field mae mode=$mode rollouts=1000 mae)" "$(field mae mode=$mode rollouts=1 mae)" ||
        bad "$mode: error with 1000 rollouts not below error with 1"
done
less "$(field mae mode=lbs rollouts=1000 mae)" "$(field mae mode=plain rollouts=1000 mae)" ||
    bad "lbs rollouts not more accurate than plain ones on tic-tac-toe"
less "$(field mae mode=ideal rollouts=1000 mae)" "$(awk -v x="$(field mae mode=lbs rollouts=1000 mae)" 'BEGIN { print x + 1 }')" ||
    bad "ideal error above lbs error"
less "$(field mae mode=hook rollouts=1000 mae)" "$(awk -v x="$(field mae mode=plain rollouts=1000 mae)" 'BEGIN { print x + 1 }')" ||
    bad "hook rollouts (the cheap formulas) less accurate than plain ones"
less "$(field mae mode=bdd rollouts=1000 mae)" "$(awk -v x="$(field mae mode=lbs rollouts=1000 mae)" 'BEGIN { print x + 0.5 }')" ||
    bad "bdd rollouts (the whole game's sets) less accurate than every formula"
[ "$(field mae mode=bddval rollouts=1 mae)" = 0.0000 ] && [ "$(field rollout mode=bddval stopped_share)" = 1.0000 ] ||
    bad "bddval: tic-tac-toe not solved (a rollout not stopped at once at the exact value)"
[ "$(field bddcheck unsound_bdd)" = 0 ] && [ "$(field bddcheck unsound_bddval)" = 0 ] ||
    bad "a bdd hit contradicts the exact value"
less 0 "$(field rollout mode=lbs stopped_share)" || bad "no lbs rollout stopped early"
less 0 "$(field check z3_confirmed)" || bad "Z3 confirmed no hit"
[ "$(field check z3_disagree)" = 0 ] || bad "Z3 disagreed with the matcher"
[ "$(field check unsound)" = 0 ] || bad "a hit contradicts the exact value"
less 0 "$(field cost mode=lbs us_per_check)" || bad "no check cost measured"

# The engines agree: on the interpreter and on the ground network the same seed gives the
# same positions and the same plain rollout rows (the solver's graph and numbering, the
# random matches and the rollouts are the engine's part; each mode draws from its own
# random stream), for sampled positions of the whole game and for positions of random
# matches; and the same ideal rows when both backward searches reached the same formulas
# in their time budget (the ideal stop uses the W_i sets they reached). The lbs and hook
# rows also hang on Z3's and the hook calibration's timings, so they are not compared.
strip_times() { sed -E 's/ (regress_seconds|solve_seconds|check_seconds|z3_seconds|step_us)=[0-9.]+//g'; }
for positions in sample:150 random:4; do
    for engine in interp ground; do
        "$GGP" accuracy "$GAMES/tictactoe.kif" --positions "$positions" --ply 3 --rollouts 1,10 \
            --mcts-iters 0 --budget 0 --steps 4 --cost-seconds 0 --seed 5 --engine "$engine" 2>/dev/null |
            strip_times >"$out.$engine"
    done
    modes="plain"
    [ "$(grep "^lbs " "$out.interp")" != "$(grep "^lbs " "$out.ground")" ] || modes="plain|ideal"
    for engine in interp ground; do
        grep -E "^positions |^(mae|rollout) .* mode=($modes) " "$out.$engine" >"$out.$engine.rows"
    done
    [ "$(grep -c "mode=plain" "$out.interp.rows")" -eq 3 ] || bad "$positions: expected 3 plain rows on the interpreter"
    cmp -s "$out.interp.rows" "$out.ground.rows" ||
        bad "$positions: the ground engine's rows differ from the interpreter's: $(diff "$out.interp.rows" "$out.ground.rows" | head -4)"
    rm -f "$out.interp" "$out.ground" "$out.interp.rows" "$out.ground.rows"
done

if [ "$failed" -ne 0 ]; then
    echo "accuracy: $failed check(s) failed; output:"
    cat "$out"
    exit 1
fi
echo "accuracy: all checks passed"
