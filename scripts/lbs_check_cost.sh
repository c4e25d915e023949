#!/usr/bin/env bash
# lbs_check_cost.sh [GGP]: what the MCTS rollout hook's backward-search checks cost per
# rollout step, lifted matcher on terms against circuits on bitset states, written as
# tables to docs/lbs_check_cost.md (and printed).
#
# For each game, `ggp regress GAME --role R --budget B --cost N` computes α_i/β_i within the
# budget, plays N seeded random matches on the grounded engine and times on their states
# each formula both ways against one rollout step of that engine (every role's legal moves,
# then the next state), counts how many formulas (i >= 1) fit within SHARE of a step each
# way, and times the hook itself (lbs_new's guarded formulas, those it takes within SHARE of
# a step) on bitsets and on terms. Any disagreement between the two ways fails the run.
# Environment: BUDGET (default 10), PLAYOUTS (default 200), SHARE (default 0.2), ENGINE
# (default compiled), CORPUS (default ../shared/gdl-corpus), OUT (default
# docs/lbs_check_cost.md).
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
GGP=${1:-build/ggp}
BUDGET=${BUDGET:-10}
PLAYOUTS=${PLAYOUTS:-200}
SHARE=${SHARE:-0.2}
ENGINE=${ENGINE:-compiled}
CORPUS=${CORPUS:-../shared/gdl-corpus}
OUT=${OUT:-docs/lbs_check_cost.md}

GGP=$(ensure_ggp "$GGP") || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "no commit")
[ -n "$(git status --porcelain -- regress mcts cli 2>/dev/null)" ] && commit="$commit + local changes"

rows="" games="" rc=0
for spec in "games/tictactoe.kif:xplayer" "games/connect4.kif:red" \
    "$CORPUS/connectFour.kif:0" "$CORPUS/breakthroughSmallHoles.kif:0"; do
    path=${spec%:*} role=${spec##*:} name=$(basename "${spec%:*}" .kif)
    echo "lbs_check_cost: $name (budget $BUDGET s, $PLAYOUTS playouts)..." >&2
    "$GGP" regress "$path" --role "$role" --budget "$BUDGET" --cost "$PLAYOUTS" \
        --cost-share "$SHARE" --engine "$ENGINE" >"$tmp/out" 2>"$tmp/err" || rc=$?
    grep -v '^side=' "$tmp/out" >&2 || true
    kv='function kv(line, arr,   k, n, f, p) { n = split(line, f, " "); for (k = 1; k <= n; k++) { p = index(f[k], "="); if (p) arr[substr(f[k], 1, p - 1)] = substr(f[k], p + 1) } }'
    rows+=$(awk -v game="$name" "$kv"'
        /^cost side=/ { delete v; kv($0, v)
            if (v["literals"] == 0) next   # a false formula (the sequence ended)
            bits = v["bits_ns"] + 0 < 0 ? "too big" : sprintf("%.0f", v["bits_ns"])
            bs = v["bits_ns"] + 0 < 0 ? "–" : sprintf("%.3f", v["bits_steps"])
            sp = v["bits_ns"] + 0 < 0 ? "–" : sprintf("%.0fx", v["speedup"])
            printf "| %s | %s_%s | %s | %s | %.0f | %s | %.2f | %s | %s |\n", game, v["side"], v["i"], v["literals"], v["program"], v["lifted_ns"], bits, v["lifted_steps"], bs, sp }
    ' "$tmp/out")$'\n'
    games+=$(awk -v game="$name" "$kv"'
        /^# cost / { delete c; kv($0, c); step = c["step_ns"]; conv = c["to_terms_ns"] + c["index_ns"] }
        /^fit / { delete f; kv($0, f); fit[f["share"] + 0] = f["lifted_alpha"] "/" f["lifted_beta"] " → " f["bits_alpha"] "/" f["bits_beta"]; all = f["alpha"] "/" f["beta"] }
        /^hook / { delete h; kv($0, h) }
        /^uct / { delete u; kv($0, u); ush[u["hook"]] = sprintf("%.0f", u["steps_per_s"]); ushare[u["hook"]] = sprintf("%.1f%%", 100 * u["hook_share"]); uin = u["hook_alpha"] "/" u["hook_beta"] }
        END { printf "| %s | %.0f | %.0f | %s | %s | %s | %s | %s/%s | %.0f (%.3f) | %.0f (%.2f) | %s | %s → %s | %s → %s |\n", game, step, conv, all, fit['"$SHARE"' + 0], fit[1], fit[3], h["hook_alpha"] "/" h["hook_beta"] " of " h["guarded_alpha"], h["guarded_beta"], h["bits_ns"], h["bits_steps"], h["terms_ns"], h["terms_steps"], uin, ush["terms"], ush["bits"], ushare["terms"], ushare["bits"] }
    ' "$tmp/out")$'\n'
done

{
    echo "# Backward-search checks per rollout step: lifted matcher against bitset circuits"
    echo
    echo "Made by \`scripts/lbs_check_cost.sh\` on $(date -u +%Y-%m-%d), commit $commit, $(nproc) cores,"
    echo "${cpu:-unknown cpu}, load average at the start $load (the machine is shared: each"
    echo "figure is the best of several passes). Engine: $ENGINE; backward search $BUDGET s per"
    echo "game; the states of $PLAYOUTS seeded random matches. A *step* is one rollout step of"
    echo "the engine as a rollout with a hook takes it (every role's legal moves, then the next"
    echo "state). *Lifted*: the state turned into terms, indexed, and the formula matched (what the"
    echo "hook cost on a grounded engine before); *bits*: the formula's circuit on the bitset"
    echo "state (its guard, then its disjuncts, on demand). Both found the same first disjunct on"
    echo "every state (the run fails otherwise)."
    echo
    echo "## Per game"
    echo
    echo "*fit X*: formulas with i >= 1 (α/β; *all*: how many there are) that fit, by increasing"
    echo "i, within X rollout steps per check: lifted → on bitsets (a lifted check pays the"
    echo "conversion to terms once). *hook*: the rollout hook itself (lbs_new's formulas, those"
    echo "that passed its guard, α/β in the hook within $SHARE of a step), in ns per call and in"
    echo "steps, on bitsets and, converting each state to terms first as before, on terms."
    echo "*UCT*: a 2 s UCT search from the initial state with the hook at its default"
    echo "budget (3 steps; α/β in the hook): rollout steps per second and the hook's share of"
    echo "the search time, hook on terms → hook on bitsets."
    echo
    echo "| game | step ns | to terms ns | all α/β | fit $SHARE | fit 1 | fit 3 | hook α/β of guarded | hook on bits ns (steps) | same on terms ns (steps) | UCT hook α/β | UCT steps/s | UCT hook share |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    printf "%s" "$games"
    echo
    echo "## Per formula"
    echo
    echo "ns per state; *program*: the circuit's gates, tests and inputs; *too big*: its grounding"
    echo "passes the limit, so it stays on the lifted matcher."
    echo
    echo "| game | formula | literals | program | lifted ns | bits ns | lifted steps | bits steps | speedup |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
    printf "%s" "$rows"
} | tee "$OUT"
exit $rc
