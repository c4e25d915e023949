#!/usr/bin/env bash
# bench.sh [GGP]: random-playout speed of every engine, written to docs/bench.md (and
# printed); the README's "Latest figures" table is refreshed between the bench markers.
#
#  1. Our three benchmark games (games/): playouts/s of the interpreter, the ground
#     network (change-driven propagation) and the compiled network, each the best of
#     REPEAT runs of SECONDS_PER_GAME seconds (the machine is shared: the best run is the
#     one least disturbed); the ratio to the interpreter and, for tic-tac-toe and connect
#     four, to ../shared/bench/handcoded.c (hand-written bitboards, cc -O3, same protocol);
#     the time to ground and to compile (compiled code is cached: the compile time is
#     measured with an empty cache).
#  2. The corpus (../shared/gdl-corpus, or GGP_CORPUS): for every game, whether it grounds,
#     the network's size, the engine `auto` chooses, its ground and compile seconds (an
#     empty compile cache), its playouts/s and the interpreter's (one run of CORPUS_SECONDS
#     each) and their ratio; the summary: how many ground, how many run compiled code, the
#     median and worst playouts/s and ratio. Results go to CORPUS_RESULTS (default
#     build/bench-corpus.tsv) game by game: a run stopped (CORPUS_BUDGET seconds, ^C) goes
#     on where it stopped when started again; CORPUS_FRESH=1 starts over. The whole corpus
#     (193 games) takes about 30 minutes on an idle 2-core machine. CORPUS_GAMES: a file
#     of game names, only those. CORPUS=0 skips this part.
#  3. With BASELINE=another ggp binary (an older build): its compiled engine on the three
#     games, run alternately with ours, and the ratio (load on a shared machine cancels
#     out of a ratio better than out of a figure).
# Environment: SECONDS_PER_GAME (default 5), REPEAT (3), CORPUS_SECONDS (1), CORPUS (1),
# CORPUS_RESULTS, CORPUS_FRESH, CORPUS_BUDGET, CORPUS_GAMES, OUT (docs/bench.md),
# GGP_CORPUS, BASELINE. OURS=0 skips part 1 (the corpus alone).
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
GGP=${1:-build/ggp}
SECS=${SECONDS_PER_GAME:-5}
REPEAT=${REPEAT:-3}
CSECS=${CORPUS_SECONDS:-1}
OUT=${OUT:-docs/bench.md}
CORPUS_DIR=${GGP_CORPUS:-../shared/gdl-corpus}
HANDCODED=../shared/bench/handcoded.c

GGP=$(ensure_ggp "$GGP") || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GGP_CACHE=$tmp/cache # an empty cache: compile times are real

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
[ -n "$cpu" ] || cpu=$(uname -m)
machine="$(nproc) cores, $cpu"
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "no commit")
[ -n "$(git status --porcelain -- gdl cli engine 2>/dev/null)" ] && commit="$commit + local changes"

# field NAME LINE: the value of NAME=... in LINE
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }

# run1 GAME ENGINE SECONDS [BINARY]: "pps ground_s compile_s engine" of one run (zeros on
# failure)
run1() {
    local out first last
    out=$(timeout 300 "${4:-$GGP}" bench "$1" --seconds "$3" --engine "$2" 2>/dev/null) || {
        echo "0 0 0 none"
        return
    }
    first=$(echo "$out" | head -1) last=$(echo "$out" | tail -1)
    echo "$(field playouts_per_sec "$last") $(field ground_s "$first") $(field compile_s "$first") $(field engine "$first")"
}

# best GAME ENGINE SECONDS RUNS: run1 of the fastest run; the compile time of the first
best() {
    local b=0 gs=0 cs="" eng=none pps g c e
    for _ in $(seq "$4"); do
        read -r pps g c e <<<"$(run1 "$1" "$2" "$3")"
        [ -z "$cs" ] && cs=$c
        if awk -v a="$pps" -v b="$b" 'BEGIN { exit !(a > b) }'; then b=$pps gs=$g eng=$e; fi
    done
    echo "$b $gs $cs $eng"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else printf "-" }'; }

# target GAME PPS: issue 14's one-core target for the game and whether PPS meets it
target() {
    local t
    case $1 in
    tictactoe) t=1260000 ;;
    connect4) t=340000 ;;
    breakthrough) t=43000 ;;
    *) echo "-" && return ;;
    esac
    awk -v a="$2" -v t="$t" 'BEGIN { if (a >= t) printf "%d: met", t; else printf "%d: missed by %.0f%%", t, 100 * (t - a) / t }'
}

# ---- the hand-written limit ----
hc_ttt="" hc_c4=""
if [ "${OURS:-1}" != 0 ] && [ -f "$HANDCODED" ] && cc -O3 -o "$tmp/handcoded" "$HANDCODED" 2>/dev/null; then
    for which in ttt c4; do
        b=0
        for _ in $(seq "$REPEAT"); do
            v=$("$tmp/handcoded" "$which" "$SECS" | sed -n 's/.*playouts\/s \([0-9.]*\).*/\1/p')
            if awk -v a="$v" -v b="$b" 'BEGIN { exit !(a > b) }'; then b=$v; fi
        done
        [ $which = ttt ] && hc_ttt=$b || hc_c4=$b
    done
fi

# ---- our benchmark games ----
rows="" short="" base_rows="" base_short=""
ours=""
[ "${OURS:-1}" != 0 ] && ours="tictactoe connect4 breakthrough"
for game in $ours; do
    echo "bench: $game ($REPEAT x $SECS s per engine)..." >&2
    read -r ip _ _ _ <<<"$(best "games/$game.kif" interp "$SECS" "$REPEAT")"
    read -r gp gs _ _ <<<"$(best "games/$game.kif" ground "$SECS" "$REPEAT")"
    read -r cp _ cs _ <<<"$(best "games/$game.kif" compiled "$SECS" "$REPEAT")"
    hc=""
    [ $game = tictactoe ] && hc=$hc_ttt
    [ $game = connect4 ] && hc=$hc_c4
    hcol="-" hr="-"
    if [ -n "$hc" ]; then
        hcol=$(printf '%.0f' "$hc")
        hr="1/$(ratio "$hc" "$(awk -v a="$gp" -v b="$cp" 'BEGIN { print (a > b ? a : b) }')")"
    fi
    if [ -n "${BASELINE:-}" ]; then # alternately: ours, the baseline
        bo=0 bb=0
        for _ in $(seq "$REPEAT"); do
            read -r o _ _ _ <<<"$(run1 "games/$game.kif" compiled "$SECS")"
            read -r b _ _ _ <<<"$(run1 "games/$game.kif" compiled "$SECS" "$BASELINE")"
            bo=$(awk -v a="$o" -v b="$bo" 'BEGIN { print (a > b ? a : b) }')
            bb=$(awk -v a="$b" -v b="$bb" 'BEGIN { print (a > b ? a : b) }')
        done
        base_rows="$base_rows| $game | $(printf '%.0f' "$bo") | $(printf '%.0f' "$bb") | $(ratio "$bo" "$bb")x |"$'\n'
        base_short="$base_short $game $(ratio "$bo" "$bb")x,"
    fi
    tgt=$(target "$game" "$(awk -v a="$gp" -v b="$cp" 'BEGIN { print (a > b ? a : b) }')")
    rows="$rows| $game | $(printf '%.0f' "$ip") | $(printf '%.0f' "$gp") | $(printf '%.0f' "$cp") | $(ratio "$gp" "$ip")x | $(ratio "$cp" "$ip")x | $hcol | $hr | $gs | $cs | $tgt |"$'\n'
    short="$short| $game | $(printf '%.0f' "$ip") | $(printf '%.0f' "$gp") | $(printf '%.0f' "$cp") | $hcol | $tgt |"$'\n'
done

# ---- the corpus ----
# One line per game in $CRES (tab-separated: name, grounds, nodes, literals, ground s,
# engine, compile s, playouts/s of that engine, of the interpreter, avg length), written as
# each game is done: a run that stops (CORPUS_BUDGET, ^C) is resumed by the next; a fresh
# run (CORPUS_FRESH=1, or the results file absent) starts with an empty compile cache, so
# that compile times are real.
corpus_rows="" summary="corpus part skipped (CORPUS=0 or no corpus)"
if [ "${CORPUS:-1}" != 0 ] && [ -d "$CORPUS_DIR" ]; then
    CRES=${CORPUS_RESULTS:-build/bench-corpus.tsv}
    CCACHE=${CRES%.tsv}-cache
    mkdir -p "$(dirname "$CRES")"
    if [ "${CORPUS_FRESH:-0}" = 1 ] || [ ! -f "$CRES" ]; then
        : >"$CRES"
        rm -rf "$CCACHE"
    fi
    mkdir -p "$CCACHE"
    cstart=$(date +%s) stopped=0
    for path in "$CORPUS_DIR"/*.kif "$CORPUS_DIR"/*.gdl; do
        [ -f "$path" ] || continue
        name=$(basename "$path")
        if [ -n "${CORPUS_GAMES:-}" ] && ! grep -qxF "${name%.*}" "$CORPUS_GAMES"; then continue; fi
        cut -f1 "$CRES" | grep -qxF "$name" && continue # done by an earlier run
        if [ "${CORPUS_BUDGET:-0}" != 0 ] && [ $(($(date +%s) - cstart)) -ge "$CORPUS_BUDGET" ]; then
            stopped=1
            break
        fi
        echo "bench: corpus $name..." >&2
        info=$(GGP_CACHE=$CCACHE timeout 120 "$GGP" ground "$path" 2>/dev/null | tail -1) || true
        if echo "$info" | grep -q '^nodes='; then
            grounds=yes nodes=$(field nodes "$info") lits=$(field literals "$info")
        else
            why=$(echo "$info" | sed -n 's/.*does not ground: //p')
            grounds="no (${why:-does not load or timed out})" nodes=- lits=-
        fi
        read -r ip _ _ _ <<<"$(run1 "$path" interp "$CSECS")"
        out=$(GGP_CACHE=$CCACHE timeout 600 "$GGP" bench "$path" --seconds "$CSECS" 2>/dev/null) || out=""
        first=$(echo "$out" | grep '^game ' | tail -1) last=$(echo "$out" | tail -1)
        ap=$(field playouts_per_sec "$last")
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$grounds" "$nodes" "$lits" \
            "$(field ground_s "$first")" "$(field engine "$first")" "$(field compile_s "$first")" \
            "${ap:-0}" "${ip:-0}" "$(field avg_length "$last")" >>"$CRES"
    done
    corpus_rows=$(awk -F'\t' 'function fmt(x) { return x >= 100 ? sprintf("%.0f", x) : sprintf("%.1f", x) }
    {
        r = ($9 > 0 && $8 > 0) ? sprintf("%.1fx", $8 / $9) : "-"
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, fmt($8), fmt($9), r
    }' "$CRES")$'\n'
    summary=$(awk -F'\t' -v stopped=$stopped '
        { n++; if ($2 == "yes") g++; if ($6 == "compiled") c++
          if ($8 > 0) { pps[++np] = $8; if ($9 > 0) sp[++ns] = $8 / $9 } }
        function median(a, k,   i, j, t) {
            for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
            return k ? (k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2) : 0 }
        END {
            printf "%d corpus games measured%s: %d ground, %d run compiled code.", n, stopped ? " (the time budget ran out: run again to go on)" : "", g, c
            if (np) { m = median(pps, np); printf " Playouts/s of the engine chosen: median %.0f, worst %.3g.", m, pps[1] }
            if (ns) { m = median(sp, ns); printf " Its speed over the interpreter: median %.1fx, worst %.1fx.", m, sp[1] }
        }' "$CRES")
fi

mkdir -p "$(dirname "$OUT")"
{
    echo "# Benchmark: random playouts"
    echo
    echo "Produced by \`scripts/bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC') ($commit)."
    echo "Machine: $machine, shared with other work (load average before the run: $load)."
    echo "\`ggp bench GAME --seconds $SECS --engine E\`, one thread, Release build; each figure"
    echo "is the best of $REPEAT runs (the least disturbed one). Playouts/s:"
    echo
    echo "| game | interp | ground | compiled | ground/interp | compiled/interp | handcoded.c | ratio to handcoded | ground s | compile s | target |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    printf '%s' "$rows"
    echo
    echo "- interp: the interpreter (engine/reason.c); ground: the grounded network with"
    echo "  change-driven propagation (engine/prop.c; the levelled evaluator on networks with"
    echo "  recursion); compiled: the network as C code with the whole playout loop, cc -O1,"
    echo "  dlopen (engine/compile.c; docs/engine.md)."
    echo "- handcoded.c: ../shared/bench/handcoded.c (bitboards, cc -O3), best of $REPEAT runs;"
    echo "  the ratio compares it with our faster engine."
    echo "- compile s: with an empty cache (the object is cached per game text afterwards)."
    echo "- target: issue 14's one-core target, met or missed by how much by our faster engine"
    echo "  (the machine is shared: a figure measured under load is low; see the baseline ratios)."
    echo
    if [ -n "$base_rows" ]; then
        echo "Compiled engine against the baseline \`$BASELINE\` (its compiled engine), runs"
        echo "alternating, best of $REPEAT each:"
        echo
        echo "| game | ours | baseline | ours/baseline |"
        echo "|---|---:|---:|---:|"
        printf '%s' "$base_rows"
        echo
    fi
    echo "## Corpus"
    echo
    echo "$summary One run of $CSECS s per engine and game ('ggp bench GAME': the engine"
    echo "'auto' chooses; compile s with an empty cache; literals: the ground network's size)."
    echo
    if [ -n "$corpus_rows" ]; then
        echo "| game | grounds | nodes | literals | ground s | engine | compile s | playouts/s | interp playouts/s | over interp |"
        echo "|---|---|---:|---:|---:|---|---:|---:|---:|---:|"
        printf '%s' "$corpus_rows"
    fi
} >"$OUT"
cat "$OUT"

if [ "${OURS:-1}" != 0 ] && [ -f README.md ] && grep -q '<!-- bench:begin -->' README.md; then
    {
        echo "Measured $(date -u '+%Y-%m-%d') on $machine (best of $REPEAT runs, playouts/s):"
        echo
        echo "| game | interpreter | ground | compiled | handcoded.c | target (one core) |"
        echo "|---|---:|---:|---:|---:|---|"
        printf '%s' "$short"
        echo
        [ -n "$base_short" ] && echo "Compiled engine over the baseline build (runs alternating, so load cancels out):${base_short%,}." && echo
        echo "$summary"
    } >"$OUT.readme"
    awk -v table="$OUT.readme" '
        /<!-- bench:begin -->/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
        /<!-- bench:end -->/ { skip = 0 }
        !skip { print }' README.md >README.md.tmp && mv README.md.tmp README.md
    rm -f "$OUT.readme"
fi
