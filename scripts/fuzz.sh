#!/usr/bin/env bash
# fuzz.sh [SECONDS] [TARGET...]: runs the libFuzzer targets of tests/fuzz/ (default: all,
# one after the other) for SECONDS in all (default 3600, shared equally), under nice -n 19,
# and records each run in docs/fuzz_runs.tsv and docs/fuzz.md (executions, coverage,
# crashes). Targets: parse protocol http pipeline ground (tests/fuzz/fuzz_TARGET.c).
# The corpus of each target grows across runs in build-fuzz/corpus/TARGET; a failure's
# input is kept as build-fuzz/artifacts/TARGET-crash-* (then: fix it, and copy the input
# to tests/fuzz/regressions/TARGET/ where CTest replays it).
# Environment: FUZZ_BUILD (default build-fuzz), FUZZ_RSS_MB (default 2048).
set -u
cd "$(dirname "$0")/.."
ALL="parse protocol http pipeline ground"
case ${1:-} in -h | --help) sed -n '2,9p' "$0"; exit 0 ;; esac
TOTAL=${1:-3600}
shift $(($# > 0 ? 1 : 0))
TARGETS=${*:-$ALL}
BUILD=${FUZZ_BUILD:-build-fuzz}
RUNS=docs/fuzz_runs.tsv
n=$(wc -w <<<"$TARGETS")
per=$((TOTAL / n))

echo "fuzz: building the targets in $BUILD (clang, -DGGP_FUZZ=ON)"
cmake -S . -B "$BUILD" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Release -DGGP_FUZZ=ON \
    >/dev/null || exit 1
for t in $TARGETS; do
    nice -n 19 cmake --build "$BUILD" -j 2 --target "fuzz_$t" >/dev/null || {
        echo "fuzz: cannot build fuzz_$t" >&2
        exit 1
    }
done
[ -f "$RUNS" ] || printf 'date\ttarget\tseconds\texecutions\tcov\tfeatures\tcorpus\tcrashes\tload\n' >"$RUNS"

# dict_of TARGET: the dictionary file of a target (tests/fuzz/).
dict_of() {
    case $1 in parse | pipeline | ground) echo kif.dict ;; *) echo "$1.dict" ;; esac
}

# run TARGET SECONDS: one campaign; appends its row to $RUNS.
run() {
    local t=$1 secs=$2 corpus=$BUILD/corpus/$1 seeds=$BUILD/seeds/$1 log=$BUILD/fuzz-$1.log
    mkdir -p "$corpus" "$BUILD/artifacts"
    rm -rf "$seeds"
    bash tests/fuzz/seeds.sh "$t" games "$seeds" || return 1
    local before t0 load
    before=$(ls "$BUILD/artifacts" | grep -cE "^$t-(crash|leak|timeout|oom)-")
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    t0=$(date +%s)
    echo "fuzz: $t for $secs s (log: $log)"
    nice -n 19 "$BUILD/tests/fuzz_$t" -max_total_time="$secs" -timeout=25 -rss_limit_mb="${FUZZ_RSS_MB:-2048}" \
        -max_len=65536 -print_final_stats=1 -dict="tests/fuzz/$(dict_of "$t")" \
        -artifact_prefix="$BUILD/artifacts/$t-" "$corpus" "$seeds" >"$log" 2>&1
    local rc=$? wall=$(($(date +%s) - t0))
    local execs cov ft corp crashes
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
    ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
    corp=$(ls "$corpus" | wc -l)
    crashes=$(($(ls "$BUILD/artifacts" | grep -cE "^$t-(crash|leak|timeout|oom)-") - before))
    [ $rc -ne 0 ] && [ "$crashes" = 0 ] && crashes="exit $rc"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u '+%Y-%m-%d %H:%M')" "$t" "$wall" \
        "${execs:-?}" "${cov:-?}" "${ft:-?}" "$corp" "$crashes" "$load" >>"$RUNS"
    echo "fuzz: $t: $wall s, ${execs:-?} executions, cov ${cov:-?}, corpus $corp, crashes $crashes"
    [ $rc -eq 0 ] || grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -5
}

for t in $TARGETS; do run "$t" "$per"; done
bash scripts/fuzz_report.sh "$RUNS" >docs/fuzz.md.tmp && mv docs/fuzz.md.tmp docs/fuzz.md
echo "fuzz: docs/fuzz.md written"
