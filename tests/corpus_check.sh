#!/usr/bin/env bash
# corpus_check.sh GGP REJECTIONS [CORPUS_DIR]
#
# Every game of the public corpus (*.kif, *.gdl) either passes `GGP check`, or is listed in
# REJECTIONS (tests/expected_rejections.txt, lines `FILE reason`, '#' comments) and is
# rejected with a located `file:line:col:` message. Failures:
#   - a game rejected that is not listed;
#   - a listed game that the reference accepted (`traced` in the corpus's expected.txt):
#     a game the reference plays and we reject is a bug, never an expectation;
#   - a listed game that passes (the list is out of date);
#   - a rejection without a file:line:col location, or a crash or time-out.
#
# Environment: GGP_CORPUS (overrides CORPUS_DIR), GGP_CHECK_TIMEOUT (seconds per game,
# default 600, a hang guard), CI ("true": a missing corpus fails instead of skipping with
# exit 77).

set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 GGP REJECTIONS [CORPUS_DIR]" >&2
    exit 2
fi
GGP=$1 REJ=$2
CORPUS=${GGP_CORPUS:-${3:-}}
LIMIT=${GGP_CHECK_TIMEOUT:-600}

if [ -z "$CORPUS" ] || [ ! -d "$CORPUS" ]; then
    if [ "${CI:-}" = true ]; then
        echo "corpus tests FAILED: corpus not found at '${CORPUS}' (CI=true requires it)" >&2
        exit 1
    fi
    echo "corpus tests did not run: corpus not found at '${CORPUS}' (set GGP_CORPUS)"
    exit 77
fi

listed() { sed 's/#.*//' "$REJ" | awk -v f="$1" '$1 == f { $1 = ""; sub(/^ /, ""); print; found = 1 } END { exit !found }'; }
reference() { awk -v f="$1" '$1 == f { $1 = ""; sub(/^ /, ""); print }' "$CORPUS/expected.txt" 2>/dev/null; }

. "$(dirname "$0")/exit_reason.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
accepted=0 rejected=0 failed=0 total=0
for game in "$CORPUS"/*.kif "$CORPUS"/*.gdl; do
    [ -f "$game" ] || continue
    f=$(basename "$game")
    total=$((total + 1))
    timeout -k 5 "$LIMIT" "$GGP" check "$game" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    reason=$(listed "$f")
    is_listed=$?
    ref=$(reference "$f")
    if [ $rc -eq 0 ]; then
        if [ $is_listed -eq 0 ]; then
            echo "FAIL $f: accepted, but listed in $(basename "$REJ") ($reason): remove it from the list"
            failed=$((failed + 1))
        else
            accepted=$((accepted + 1))
        fi
        continue
    fi
    msg=$(head -1 "$tmp/err")
    if [ $rc -ne 1 ]; then
        echo "FAIL $f: ggp check $(exit_reason $rc "$LIMIT"): ${msg:-nothing on stderr}"
        failed=$((failed + 1))
    elif ! grep -q "^$game:[0-9]*:[0-9]*: " "$tmp/err"; then
        echo "FAIL $f: rejected without a file:line:col message: $msg"
        failed=$((failed + 1))
    elif [ $is_listed -ne 0 ]; then
        echo "FAIL $f: rejected (reference: ${ref:-not listed}): ${msg#"$CORPUS"/}"
        failed=$((failed + 1))
    elif [ "$ref" = traced ]; then
        echo "FAIL $f: listed as a rejection, but the reference accepted and played it: ${msg#"$CORPUS"/}"
        failed=$((failed + 1))
    else
        rejected=$((rejected + 1))
    fi
done
# Listed games that are not in the corpus: a stale list.
while read -r f _; do
    [ -e "$CORPUS/$f" ] || { echo "FAIL $f: listed in $(basename "$REJ") but not in the corpus"; failed=$((failed + 1)); }
done < <(sed 's/#.*//' "$REJ" | awk 'NF')
echo "corpus check: $total games: $accepted accepted, $rejected rejected as expected, $failed failed"
[ $failed -eq 0 ]
