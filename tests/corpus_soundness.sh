#!/usr/bin/env bash
# corpus_soundness.sh GGP [CORPUS_DIR]: the CI subset of scripts/corpus_soundness.sh: a few
# corpus games (connect four as the corpus writes it, among them), both roles, α/β up to
# i = 1 with no time budget (steps, not seconds: a loaded machine must not change what is
# checked), the formulas verified on the states of a few random matches against the game
# itself (ggp regress --verify). Fails on any false positive, a crash or a time-out.
# Environment: GGP_CORPUS (overrides CORPUS_DIR), CI ("true": a missing corpus fails
# instead of skipping with exit 77).
set -u
GGP=$1
CORPUS=${GGP_CORPUS:-${2:-}}
if [ -z "$CORPUS" ] || [ ! -d "$CORPUS" ]; then
    if [ "${CI:-}" = true ]; then
        echo "corpus soundness FAILED: corpus not found at '${CORPUS}' (CI=true requires it)" >&2
        exit 1
    fi
    echo "corpus soundness did not run: corpus not found at '${CORPUS}' (set GGP_CORPUS)"
    exit 77
fi
status=0 verified=0
for g in connectFour breakthroughSmallHoles conn4 eotcatcit; do
    for role in 0 1; do
        out=$(timeout 900 "$GGP" regress "$CORPUS/$g.kif" --role "$role" --budget 0 --steps 1 \
            --verify 5 --verify-seconds 600 2>&1)
        rc=$?
        rows=$(printf '%s\n' "$out" | grep -c '^verify side=')
        fps=$(printf '%s\n' "$out" | grep '^verify side=' | grep -vc 'false_pos=0 ')
        echo "$g role $role: exit $rc, $rows formulas verified, $fps with false positives"
        if [ "$rc" -ne 0 ] || [ "$rows" -lt 4 ] || [ "$fps" -ne 0 ]; then
            printf '%s\n' "$out" | grep -v '^side=' | head -20
            status=1
        fi
        verified=$((verified + rows))
    done
done
echo "corpus soundness: $verified formulas verified: $([ $status = 0 ] && echo passed || echo FAILED)"
exit $status
