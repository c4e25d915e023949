#!/usr/bin/env bash
# regress_table.sh [GGP]: how far lifted backward search gets within its time budget, written
# as a table to docs/regress.md (and printed).
#
# For each game, `ggp regress GAME --role A --budget B --hits N` computes α_0, β_0, α_1, ...
# until the budget is spent; per formula the table gives the seconds it took, its size
# (disjuncts, literals), whether it is complete (no cap, cut or bound under-approximated it),
# and the share of the states of N seeded random matches that satisfy it: how often a
# rollout would be cut short by it (0 for a formula that is sound but useless in play).
# Environment: BUDGET (default 10), MATCHES (random matches for the shares, default 200),
# HITS_SECONDS (matcher time per formula for its share, default 10: the native matcher can
# take seconds per state on tic-tac-toe's deepest formulas; such a row counts fewer states),
# OUT (default docs/regress.md).
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
GGP=${1:-build/ggp}
BUDGET=${BUDGET:-10}
MATCHES=${MATCHES:-200}
HITS_SECONDS=${HITS_SECONDS:-10}
OUT=${OUT:-docs/regress.md}

GGP=$(ensure_ggp "$GGP") || exit 1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "no commit")
[ -n "$(git status --porcelain -- regress 2>/dev/null)" ] && commit="$commit + local changes"
rows="" summary=""
for spec in tictactoe:xplayer connect4:red breakthrough:white connect3_4x4:0; do
    game=${spec%%:*} role=${spec#*:}
    echo "regress_table: $game (budget $BUDGET s)..." >&2
    "$GGP" regress "games/$game.kif" --role "$role" --budget "$BUDGET" --hits "$MATCHES" --hits-seconds "$HITS_SECONDS" >"$tmp/$game.out"
    rows+=$(awk -v game="$game" '
        function kv(line, arr,   k, n, f, p) {
            n = split(line, f, " ")
            for (k = 1; k <= n; k++) { p = index(f[k], "="); if (p) arr[substr(f[k], 1, p - 1)] = substr(f[k], p + 1) }
        }
        /^hits side=/ { delete h; kv($0, h); share[h["side"] " " h["i"]] = h["share"]; hh[h["side"] " " h["i"]] = h["hits"]; st[h["side"] " " h["i"]] = h["states"] }
        /^side=/ { delete v; kv($0, v); n++; key[n] = v["side"] " " v["i"]; line[n] = sprintf("| %s | %s | %s | %s | %s | %s | %s |", game, v["side"], v["i"], v["seconds"], v["disjuncts"], v["literals"], v["complete"]) }
        END { for (k = 1; k <= n; k++) printf "%s %s (%s of %s) |\n", line[k], share[key[k]], hh[key[k]], st[key[k]] }
    ' "$tmp/$game.out")$'\n'
    # the last i with a formula that is not false, per side
    last() { awk -v side="$1" '$1 == "side=" side { split($2, a, "="); split($4, d, "="); if (d[2] > 0) i = a[2] } END { print i + 0 }' "$tmp/$game.out"; }
    a=$(last alpha) b=$(last beta)
    summary+="- $game (role $role): up to α$a and β$b (the last formulas that are not false) within $BUDGET s"$'\n'
done

{
    echo "# Backward search: sequences within the time budget"
    echo
    echo "Made by \`scripts/regress_table.sh\` on $(date -u +%Y-%m-%d), commit $commit, $(nproc) cores,"
    echo "${cpu:-unknown cpu}, load average at the start $load (the machine is shared: seconds vary)."
    echo "Budget $BUDGET s per game (mutex proofs included). One row per formula: *seconds* to compute"
    echo "it, its size, *complete* (no for a formula a time slice, size cap or recursion bound cut:"
    echo "still sound, it describes fewer states), and *hit share*: the share of the states of"
    echo "$MATCHES seeded random matches that satisfy it (how often a rollout would stop early there)."
    echo "The matcher gets $HITS_SECONDS s per formula for this: a row with fewer states than the"
    echo "others ran out of it (its share is over the states it took, the first ones of the matches)."
    echo "A formula with 0 disjuncts is false (a step that found nothing within its share of time)."
    echo
    printf '%s\n' "$summary"
    echo "| game | side | i | seconds | disjuncts | literals | complete | hit share (states) |"
    echo "|---|---|---:|---:|---:|---:|---|---:|"
    printf '%s' "$rows"
} >"$OUT"
cat "$OUT"
