#!/usr/bin/env bash
# soundness.sh [GGP]: backward search checked against the exact solver on every reachable
# state of small games, written as a table to docs/soundness.md (and printed).
#
# For each game and role A, `ggp regress GAME --role A --budget B --check` computes the
# sequences α_i (A's forced wins within i rounds) and β_i (the other role's) with the same
# time budget as in play, solves the game exactly, and checks every formula on every
# reachable state: a hit outside the exact set W_i is a false positive (must be 0); a
# state of W_i that a complete formula misses is a miss (must be 0; an incomplete formula,
# cut by the budget or a bound, may miss); Z3 must agree with the native matcher.
# hex3 is games/hex5.kif cut down to 3x3 (recursive rules: bounded unfolding). The small
# games of the public corpus (CORPUS, default ../shared/gdl-corpus) are checked too, both
# roles; the section scripts/corpus_soundness.sh writes (the whole corpus, verified on
# random matches) is kept.
# Environment: BUDGET (seconds per game, default 10), OUT (default docs/soundness.md).
# Exits 1 when any false positive, complete miss or Z3 disagreement is found.
set -eu
case ${1:-} in -h | --help) sed '1d; /^[^#]/,$d' "$0"; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
. scripts/lib.sh
GGP=${1:-build/ggp}
BUDGET=${BUDGET:-10}
OUT=${OUT:-docs/soundness.md}

GGP=$(ensure_ggp "$GGP") || exit 1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# hex on 3x3, the same cut as tests/unit/test_regress_sound.c
sed -e 's/(index 4) (index 5)//' -e 's/(succ 3 4) (succ 4 5)//' \
    -e 's/(endedge red ?x 5)/(endedge red ?x 3)/' -e 's/(endedge blue 5 ?y)/(endedge blue 3 ?y)/' \
    games/hex5.kif >"$tmp/hex3.kif"

commit=$(git rev-parse --short HEAD 2>/dev/null || echo "no commit")
[ -n "$(git status --porcelain -- regress 2>/dev/null)" ] && commit="$commit + local changes"
rows="" bad=0
C=${CORPUS:-../shared/gdl-corpus}
specs=(tictactoe:games/tictactoe.kif:xplayer connect3_4x4:games/connect3_4x4.kif:0
    nim:games/nim.kif:0 hex3:$tmp/hex3.kif:0)
# the corpus games small enough to solve (the rest: scripts/corpus_soundness.sh)
for g in eotcatcit toetictac sum15 tictactoe-init1 gt_centipede gt_dollar gt_ultimatum minichess; do
    [ -f "$C/$g.kif" ] && specs+=("$g:$C/$g.kif:0" "$g:$C/$g.kif:1")
done
for spec in "${specs[@]}"; do
    IFS=: read -r game file role <<<"$spec"
    key=$game.$role
    echo "soundness: $game (budget $BUDGET s)..." >&2
    set +e
    "$GGP" regress "$file" --role "$role" --budget "$BUDGET" --check >"$tmp/$key.out" 2>"$tmp/$key.err"
    rc=$?
    set -e
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ]; then
        echo "soundness: $game: ggp regress exited $rc: $(head -3 "$tmp/$key.err")" >&2
        exit 1
    fi
    [ "$rc" -eq 4 ] && bad=1
    [ "$role" = 0 ] || [ "$role" = xplayer ] || game="$game (role $role)"
    rows+=$(awk -v game="$game" '
        /^check side=/ {
            for (k = 2; k <= NF; k++) { split($k, kv, "="); v[kv[1]] = kv[2] }
            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", game, v["side"], v["i"],
                v["states"], v["exact"], v["hits"], v["false_pos"] + v["late"], v["misses"],
                v["z3_checked"], v["z3_disagree"], v["complete"]
        }' "$tmp/$key.out")$'\n'
    grep -q '^check mutex=.*violations=[1-9]' "$tmp/$key.out" && bad=1
done

# the corpus section of scripts/corpus_soundness.sh is kept
corpus_part=""
[ -f "$OUT" ] && corpus_part=$(sed -n '/<!-- corpus:begin -->/,/<!-- corpus:end -->/p' "$OUT")
{
    echo "# Backward search: soundness against the exact solver"
    echo
    echo "Made by \`scripts/soundness.sh\` on $(date -u +%Y-%m-%d), commit $commit, $(nproc) cores;"
    echo "budget $BUDGET s per game (the same cuts as in play). For every formula α_i (side alpha:"
    echo "the first role's forced wins within i rounds) and β_i (side beta: the other role's), every"
    echo "reachable state is checked: *exact* is the number of states in the exact set W_i (solver),"
    echo "*hits* the states satisfying the formula (native matcher), *false positives* hits outside"
    echo "W_i or without a forced win within i rounds (must be 0), *misses* states of W_i the"
    echo "formula does not hold in (must be 0 when *complete* is yes; a formula cut by the budget, a"
    echo "size cap or the recursion bound says no), *z3 checked* the states Z3 decided too (0 for a"
    echo "formula whose grounding passes the node limit), *z3 disagreements* states where Z3 and the"
    echo "matcher differ (must be 0). hex3 is games/hex5.kif cut to 3x3 (recursive rules). The"
    echo "small games of the public corpus follow ours, both roles (\"(role 1)\": the second); the"
    echo "whole corpus, too big to solve, is verified against the games on random matches in the"
    echo "last section."
    echo
    echo "| game | side | i | states checked | exact | hits | false positives | misses | z3 checked | z3 disagreements | complete |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    printf '%s' "$rows"
    if [ -n "$corpus_part" ]; then
        echo
        printf '%s\n' "$corpus_part"
    fi
} >"$OUT"
cat "$OUT"
if [ "$bad" -ne 0 ]; then
    echo "soundness: FAILED (false positives, complete misses, Z3 disagreements or mutex violations)" >&2
    exit 1
fi
