#!/usr/bin/env bash
# fuzz_smoke.sh FUZZER TARGET GAMES_DIR [SECONDS]
#
# Runs a libFuzzer target (tests/fuzz/fuzz_TARGET.c) for SECONDS (default 15) on its seed
# corpus (tests/fuzz/seeds.sh: the project's games, a few malformed inputs, the inputs
# that once made it fail), with its dictionary. Exits non-zero when the fuzzer finds a
# crash, a leak, undefined behaviour or a hang, and prints the reproducer.

set -u
if [ $# -lt 3 ]; then
    echo "usage: $0 FUZZER TARGET GAMES_DIR [SECONDS]" >&2
    exit 2
fi
FUZZER=$(realpath "$1") TARGET=$2 GAMES=$(realpath "$3") SECONDS_=${4:-15}
dir=$(cd "$(dirname "$0")" && pwd)
case $TARGET in parse | pipeline) dict=kif.dict ;; *) dict=$TARGET.dict ;; esac
out_dir=$PWD # reproducers of failures are kept here (fuzz-TARGET-crash-*, ...)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus"
bash "$dir/fuzz/seeds.sh" "$TARGET" "$GAMES" "$work/seeds" || exit 2
cd "$work" || exit 2
"$FUZZER" -max_total_time="$SECONDS_" -timeout=25 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -dict="$dir/fuzz/$dict" \
    -artifact_prefix="$out_dir/fuzz-$TARGET-" corpus seeds >"$work/log" 2>&1
rc=$?
grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|INFO: seed corpus)' "$work/log" | head -5
if [ $rc -ne 0 ]; then
    echo "fuzz $TARGET: FAIL (exit $rc); the fuzzer's report:"
    grep -v '^#[0-9]' "$work/log" | tail -40
    for a in "$out_dir"/fuzz-"$TARGET"-*; do
        [ -f "$a" ] || continue
        echo "fuzz $TARGET: reproducer $a (base64):"
        base64 "$a" | head -20
    done
    exit 1
fi
echo "fuzz $TARGET: ok, no failure in $SECONDS_ s"
