#!/usr/bin/env bash
# corpus_check.sh [GGP]: both corpus tests by hand, with their full reports.
#   1. every corpus game is accepted by `ggp check` or listed in tests/expected_rejections.txt
#      (tests/corpus_check.sh);
#   2. every reference trace is reproduced byte for byte, seeded and replayed
#      (tests/corpus_traces.sh).
# GGP defaults to build/ggp (built if missing). The corpus is ../shared/gdl-corpus or
# $GGP_CORPUS; the other GGP_CORPUS_* variables of tests/corpus_traces.sh apply
# (e.g. GGP_CORPUS_JOBS=4, GGP_CORPUS_TIMEOUT=300, GGP_CORPUS_SUBSET=FILE).
set -u
case ${1:-} in -h | --help) sed '1d; /^[^#]/,$d' "$0"; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
. scripts/lib.sh
GGP=${1:-build/ggp}
CORPUS=${GGP_CORPUS:-../shared/gdl-corpus}
GGP=$(ensure_ggp "$GGP") || exit 1
status=0
echo "== acceptance: ggp check on every game"
bash tests/corpus_check.sh "$GGP" tests/expected_rejections.txt "$CORPUS" || status=1
echo "== reference traces"
bash tests/corpus_traces.sh "$GGP" "$CORPUS" || status=1
exit $status
