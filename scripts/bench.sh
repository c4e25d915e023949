#!/usr/bin/env bash
# bench.sh [GGP]: random-playout speed of the reasoner on the three benchmark games, written
# as a table to docs/bench.md (and printed). GGP defaults to build/ggp (built if missing).
# Environment: SECONDS_PER_GAME (default 10), OUT (default docs/bench.md).
# It also refreshes the "Latest figures" table of README.md (between the bench markers).
#
# The reference column is the community's Java prover (ggp-base) on the same games, as given
# in issue 3: 1176 / 102 / 13.2 random playouts per second.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
GGP=${1:-build/ggp}
SECS=${SECONDS_PER_GAME:-10}
OUT=${OUT:-docs/bench.md}

GGP=$(ensure_ggp "$GGP") || exit 1

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
[ -n "$cpu" ] || cpu=$(uname -m)
machine="$(nproc) cores, $cpu"
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "no commit")
[ -n "$(git status --porcelain -- gdl cli 2>/dev/null)" ] && commit="$commit + local changes"

rows="" short=""
for spec in tictactoe:1176 connect4:102 breakthrough:13.2; do
    game=${spec%%:*} ref=${spec#*:}
    echo "bench: $game ($SECS s)..." >&2
    line=$("$GGP" bench "games/$game.kif" --seconds "$SECS" | tail -1)
    pps=$(echo "$line" | sed -n 's/.*playouts_per_sec=\([0-9.]*\).*/\1/p')
    sps=$(echo "$line" | sed -n 's/.*states_per_sec=\([0-9.]*\).*/\1/p')
    len=$(echo "$line" | sed -n 's/.*avg_length=\([0-9.]*\).*/\1/p')
    if [ -z "$pps" ]; then
        echo "bench: no machine-readable line from '$GGP bench games/$game.kif': $line" >&2
        exit 1
    fi
    ratio=$(awk -v a="$pps" -v b="$ref" 'BEGIN { printf "%.1f", a / b }')
    rows="$rows| $game | $pps | $sps | $len | $ref | ${ratio}x |"$'\n'
    short="$short| $game | $pps | $ref | ${ratio}x |"$'\n'
done

mkdir -p "$(dirname "$OUT")"
{
    echo "# Benchmark: random playouts"
    echo
    echo "Produced by \`scripts/bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC') ($commit)."
    echo "Machine: $machine. \`ggp bench GAME --seconds $SECS\`, one thread, the reasoner"
    echo "of \`gdl/reason.c\` (Release build). Load average before the run: $load."
    echo
    echo "| game | playouts/s | states/s | avg length | reference (Java prover) playouts/s | ratio |"
    echo "|---|---:|---:|---:|---:|---:|"
    printf '%s' "$rows"
    echo
    echo "The reference figures are those of the community's Java prover (ggp-base) given in"
    echo "issue 3, measured on a machine of the same kind; the target for this interpreter"
    echo "is a ratio of at least 10x. Timings vary with the machine's load: re-run the script"
    echo "on an idle machine for figures to compare."
} >"$OUT"
cat "$OUT"

# README.md: replace the lines between the markers with the short table.
if [ -f README.md ] && grep -q '<!-- bench:begin -->' README.md; then
    {
        echo "Measured $(date -u '+%Y-%m-%d') on $machine:"
        echo
        echo "| game | playouts/s | reference (Java prover) | ratio |"
        echo "|---|---:|---:|---:|"
        printf '%s' "$short"
    } >"$OUT.readme"
    awk -v table="$OUT.readme" '
        /<!-- bench:begin -->/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
        /<!-- bench:end -->/ { skip = 0 }
        !skip { print }' README.md >README.md.tmp && mv README.md.tmp README.md
    rm -f "$OUT.readme"
fi
