#!/usr/bin/env bash
# fuzz_smoke.sh FUZZER GAMES_DIR [SECONDS]
#
# Runs the libFuzzer parser target (tests/fuzz/fuzz_parse.c) for SECONDS (default 20) on a
# seed corpus made from the project's games (games/*.kif), a few malformed inputs and the
# inputs that once made it fail (tests/fuzz/regressions/).
# Exits non-zero when the fuzzer finds a crash, a leak, undefined behaviour or a hang.

set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 FUZZER GAMES_DIR [SECONDS]" >&2
    exit 2
fi
FUZZER=$(realpath "$1") GAMES=$(realpath "$2") SECONDS_=${3:-20}
dir=$(cd "$(dirname "$0")" && pwd)
out_dir=$PWD # reproducers of failures are kept here (fuzz-crash-*, ...)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus" "$work/seeds"
cp "$GAMES"/*.kif "$work/seeds/"
cp "$dir"/fuzz/regressions/* "$work/seeds/" 2>/dev/null # inputs that once failed
printf '(role x' >"$work/seeds/unclosed"
printf ')' >"$work/seeds/stray"
printf '(role ?)' >"$work/seeds/lone"
printf '(<= (p ?x) (q ?y) (not (or (r ?x) (s ?z))))' >"$work/seeds/unsafe"
printf '(role r)\n(<= (p ?x) (q ?x) (not (s ?x)))\n(<= (s ?x) (q ?x) (not (p ?x)))' >"$work/seeds/strat"
cd "$work" || exit 2
"$FUZZER" -max_total_time="$SECONDS_" -timeout=10 -rss_limit_mb=2048 -max_len=32768 \
    -print_final_stats=1 -dict="$dir/fuzz/kif.dict" \
    -artifact_prefix="$out_dir/fuzz-" corpus seeds >"$work/log" 2>&1
rc=$?
grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|INFO: seed corpus)' "$work/log" | head -5
if [ $rc -ne 0 ]; then
    echo "fuzz: FAIL (exit $rc); the fuzzer's report:"
    grep -v '^#[0-9]' "$work/log" | tail -40
    for a in "$out_dir"/fuzz-crash-* "$out_dir"/fuzz-leak-* "$out_dir"/fuzz-timeout-* "$out_dir"/fuzz-oom-*; do
        [ -f "$a" ] || continue
        echo "fuzz: reproducer $a (base64):"
        base64 "$a" | head -20
    done
    exit 1
fi
echo "fuzz: ok, no failure in $SECONDS_ s"
