#!/usr/bin/env bash
# fuzz_smoke.sh FUZZER TARGET GAMES_DIR [RUNS]
#
# Runs a libFuzzer target (tests/fuzz/fuzz_TARGET.c) for RUNS executions (0 or none: the
# target's default below, about 15 s on an idle machine) on its seed corpus
# (tests/fuzz/seeds.sh: the project's games, a few malformed inputs, the inputs that once
# made it fail), with its dictionary. Exits non-zero when the fuzzer finds a crash, a leak,
# undefined behaviour or a hang, and prints the reproducer.
#
# The verdict is the code's, not the moment's: the fuzzer's random seed is a checksum of the
# project's sources and the run is a number of executions, not seconds, so the same code
# tries the same inputs on any machine, however loaded (a random seed once turned CI red on
# code that had passed), while every change of the code explores anew. GGP_FUZZ_SEED
# overrides the seed. Long campaigns with fresh seeds: scripts/fuzz.sh.

set -u
if [ $# -lt 3 ]; then
    echo "usage: $0 FUZZER TARGET GAMES_DIR [RUNS]" >&2
    exit 2
fi
FUZZER=$(realpath "$1") TARGET=$2 GAMES=$(realpath "$3") RUNS=${4:-0}
dir=$(cd "$(dirname "$0")" && pwd)
if [ "$RUNS" = 0 ]; then
    case $TARGET in
    parse) RUNS=7000 ;;
    pipeline) RUNS=15000 ;;
    ground) RUNS=2000 ;;
    protocol) RUNS=300 ;;
    *) RUNS=20000 ;;
    esac
fi
# The seed: the sources' checksum (never 0, which libFuzzer takes as "random").
seed=${GGP_FUZZ_SEED:-$(find "$dir/.." -name 'build*' -prune -o \( -name '*.c' -o -name '*.h' \) \
    -print | LC_ALL=C sort | xargs cat | cksum | cut -d' ' -f1)}
[ "$seed" = 0 ] && seed=1
case $TARGET in parse | pipeline | ground) dict=kif.dict ;; *) dict=$TARGET.dict ;; esac
out_dir=$PWD # reproducers of failures are kept here (fuzz-TARGET-crash-*, ...)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus"
bash "$dir/fuzz/seeds.sh" "$TARGET" "$GAMES" "$work/seeds" || exit 2
cd "$work" || exit 2
"$FUZZER" -seed="$seed" -runs="$RUNS" -timeout=25 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -dict="$dir/fuzz/$dict" \
    -artifact_prefix="$out_dir/fuzz-$TARGET-" corpus seeds >"$work/log" 2>&1
rc=$?
grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|INFO: seed corpus)' "$work/log" | head -5
if [ $rc -ne 0 ]; then
    echo "fuzz $TARGET: FAIL (exit $rc, seed $seed); the fuzzer's report:"
    grep -v '^#[0-9]' "$work/log" | tail -40
    for a in "$out_dir"/fuzz-"$TARGET"-*; do
        [ -f "$a" ] || continue
        echo "fuzz $TARGET: reproducer $a (base64):"
        base64 "$a" | head -20
    done
    exit 1
fi
echo "fuzz $TARGET: ok, no failure in $RUNS executions (seed $seed)"
