#!/usr/bin/env bash
# test.sh: the whole test suite, as CI runs it (.ci/run). From a fresh Debian 12 clone:
#   1. scripts/setup.sh installs what is missing (as root; nothing when all is present);
#   2. Release build (build-release/): every test label (unit perft games cli corpus);
#   3. Sanitize build (build-asan/, ASan + UBSan): the same suite, the corpus traces on a
#      subset of small games (tests/corpus_sanitize_subset.txt) to keep CI time down;
#   4. fuzz build (build-fuzz/, clang): a short run of each libFuzzer target of tests/fuzz/
#      and the inputs kept in tests/fuzz/regressions/ (replayed by the other passes too).
# Each pass prints ctest's summary; the script exits non-zero when any test fails.
# Environment: JOBS (default: number of cores), GGP_CORPUS (corpus directory), CI.
set -u
case ${1:-} in -h | --help) sed '1d; /^[^#]/,$d' "$0"; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
start=$(date +%s)
status=0

bash scripts/setup.sh || exit 1

# build_with_progress NAME DIR TARGET: builds into DIR/build.log, printing how far the
# build is every 30 s (a build is minutes of silence otherwise).
build_with_progress() {
    local name=$1 dir=$2 target=$3 pid t0 pct
    t0=$(date +%s)
    cmake --build "$dir" -j "$JOBS" --target "$target" >"$dir/build.log" 2>&1 &
    pid=$!
    while ! wait_for "$pid" 30; do
        pct=$(grep -o '^\[ *[0-9]*%\]' "$dir/build.log" | tail -1 | tr -d '[] ')
        echo "==== $name: building, ${pct:-0%} after $(($(date +%s) - t0)) s"
    done
    wait "$pid"
}

# wait_for PID SECONDS: true when PID ended within SECONDS.
wait_for() {
    local i
    for i in $(seq 1 "$2"); do
        kill -0 "$1" 2>/dev/null || return 0
        sleep 1
    done
    ! kill -0 "$1" 2>/dev/null
}

# pass NAME BUILD_DIR TARGET CTEST_ARGS... -- CMAKE_ARGS...: configure, build, run ctest.
pass() {
    local name=$1 dir=$2 target=$3
    shift 3
    local ctest_args=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do ctest_args+=("$1"); shift; done
    shift
    local t0
    t0=$(date +%s)
    echo "==== $name: configure and build in $dir"
    mkdir -p "$dir"
    if ! cmake -S . -B "$dir" "$@" >"$dir/configure.log" 2>&1; then
        cat "$dir/configure.log"
        echo "==== $name: FAILED to configure"
        status=1
        return
    fi
    if ! build_with_progress "$name" "$dir" "$target"; then
        grep -E 'error|Error' "$dir/build.log" | head -40
        echo "==== $name: FAILED to build (full log: $dir/build.log)"
        status=1
        return
    fi
    echo "==== $name: tests"
    (cd "$dir" && ctest --output-on-failure -j "$JOBS" "${ctest_args[@]}") || status=1
    echo "==== $name: $(($(date +%s) - t0)) s"
}

pass "Release" build-release all -- -DCMAKE_BUILD_TYPE=Release
pass "Sanitize (ASan+UBSan)" build-asan all -- -DCMAKE_BUILD_TYPE=Sanitize
if command -v clang >/dev/null; then
    pass "fuzz (clang libFuzzer)" build-fuzz fuzz_all -L fuzz -- -DCMAKE_C_COMPILER=clang \
        -DCMAKE_BUILD_TYPE=Release -DGGP_FUZZ=ON
else
    echo "==== fuzz: clang not found, FAILED"
    status=1
fi

echo "==== total $(($(date +%s) - start)) s: $([ $status = 0 ] && echo "all passes succeeded" || echo "FAILURES")"
exit $status
