#!/usr/bin/env bash
# bench.sh [GGP]: random-playout speed of every engine. It writes only what it measures:
# the generated sections of docs/bench.md (OUT), between <!-- bench:ours:begin --> and
# <!-- bench:ours:end --> (part 1) and <!-- bench:corpus:begin --> and
# <!-- bench:corpus:end --> (part 2), and of the README's "Latest figures" (README), between
# <!-- bench:begin --> and <!-- bench:end --> (part 1) and <!-- bench:corpus:begin --> and
# <!-- bench:corpus:end --> (part 2's summary). The text around the markers is hand-written
# and kept; a part not run leaves its sections as they were. Both files are written at the
# end, each as a whole file renamed over the old: a run stopped (^C, kill) or failed (a
# figure of 0 in part 1) leaves them as they were (the corpus's finished games stay in
# CORPUS_RESULTS). Each section's header
# gives the date, commit, machine, the load average before and after, and whether the
# machine was idle: other processes used less than a tenth of a core, on the cores this
# run may use (taskset), while it ran.
#
#  1. Our benchmark games: games/ tictactoe, connect4 and breakthrough, and the corpus games
#     played against Sancho, connectFour (8x6), breakthroughWalls and dotsAndBoxes (when the
#     corpus is there): playouts/s of the interpreter, the ground network (change-driven
#     propagation) and the compiled network, each the best of REPEAT runs of
#     SECONDS_PER_GAME seconds. The engines take turns in each of the REPEAT rounds, so a
#     ratio compares runs made at the same time (load on a shared machine cancels out of a
#     ratio better than out of a figure). The ratio to the interpreter and, for tic-tac-toe
#     and connect four (6x7), to ../shared/bench/handcoded.c (hand-written bitboards, cc
#     -O3, the same protocol, in the same rounds); the time to ground and to compile
#     (compiled code is cached: the compile time is measured with an empty cache).
#  2. The corpus (../shared/gdl-corpus, or GGP_CORPUS): for every game, whether it grounds,
#     the network's size, the engine `auto` chooses, its ground and compile seconds (an
#     empty compile cache), its playouts/s and the interpreter's (one run of CORPUS_SECONDS
#     each, one after the other) and their ratio; the summary: how many ground, how many
#     run compiled code, the median and worst playouts/s and ratio. Results go to
#     CORPUS_RESULTS (default build/bench-corpus.tsv) game by game, and each run's date,
#     commit and load to CORPUS_RESULTS with .runs for .tsv: a run stopped (CORPUS_BUDGET
#     seconds, ^C) goes on where it stopped when started again; CORPUS_FRESH=1 starts over.
#     The whole corpus (193 games) took 23 minutes on one shared core (2026-11-29).
#     CORPUS_GAMES: a file of game names, only those. CORPUS=0 skips this part.
#  3. With BASELINE=another ggp binary (an older build): its compiled engine on the games
#     of part 1, in the same rounds as ours, and the ratio.
# Environment: SECONDS_PER_GAME (default 5), REPEAT (3), CORPUS_SECONDS (1), CORPUS (1),
# CORPUS_RESULTS, CORPUS_FRESH, CORPUS_BUDGET, CORPUS_GAMES, OUT (docs/bench.md), README
# (README.md; empty: the README is left alone), GGP_CORPUS, BASELINE. OURS=0 skips part 1
# (the corpus alone).
# The README's figures: `CORPUS=0 REPEAT=5 SECONDS_PER_GAME=4 scripts/bench.sh` on a quiet
# machine (about 7 minutes: a round of the six games took 87 s on 2026-11-29).
set -eu
case ${1:-} in -h | --help) sed '1d; /^[^#]/,$d' "$0"; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
. scripts/lib.sh
GGP=${1:-build/ggp}
SECS=${SECONDS_PER_GAME:-5}
REPEAT=${REPEAT:-3}
CSECS=${CORPUS_SECONDS:-1}
OUT=${OUT:-docs/bench.md}
README=${README-README.md}
CORPUS_DIR=${GGP_CORPUS:-../shared/gdl-corpus}
HANDCODED=../shared/bench/handcoded.c

GGP=$(ensure_ggp "$GGP") || exit 1
tmp=$(mktemp -d)
# the files being written beside OUT and README (renamed over them at the very end)
trap 'rm -rf "$tmp" "$OUT.bench-new" ${README:+"$README.bench-new"}' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
export GGP_CACHE=$tmp/cache # an empty cache: compile times are real

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
[ -n "$cpu" ] || cpu=$(uname -m)
machine="$(nproc --all) cores, $cpu"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "no commit")
# local changes to anything but the documents this script writes
[ -n "$(git status --porcelain --untracked-files=no -- . ':!docs' ':!*.md' 2>/dev/null)" ] &&
    commit="$commit + local changes"
allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status 2>/dev/null || true)
ncores=$(nproc) # the cores this run may use

# ---- how busy the machine was ----
loadavg() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown; }
# cpu_ticks: "busy total" clock ticks of the cores this run may use, since boot
cpu_ticks() {
    awk -v list="$allowed" '
        BEGIN { n = split(list, r, ",")
                for (i = 1; i <= n; i++)
                    if (split(r[i], ab, "-") == 2) for (c = ab[1]; c <= ab[2]; c++) want["cpu" c] = 1
                    else want["cpu" r[i]] = 1 }
        (list == "" && /^cpu[0-9]/) || ($1 in want) { busy += $2 + $3 + $4 + $7 + $8; total += $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }
        END { print busy + 0, total + 0 }' /proc/stat 2>/dev/null || echo "0 0"
}
# own_ticks: clock ticks of CPU this script and its finished children used
own_ticks() { awk '{ print $14 + $15 + $16 + $17 }' "/proc/$$/stat" 2>/dev/null || echo 0; }
# mark_start / mark_end: the load average before and after a part, and the other processes'
# use of our cores in between; mark_end sets "busy" to a sentence and "idle" to yes or no.
mark_start() {
    load_before=$(loadavg) ticks_before=$(cpu_ticks) own_before=$(own_ticks)
    when=$(date -u '+%Y-%m-%d %H:%M')
}
mark_end() {
    local ticks_after own_after
    load_after=$(loadavg) ticks_after=$(cpu_ticks) own_after=$(own_ticks)
    ended=$(date -u '+%H:%M')
    read -r others idle <<<"$(awk -v b="$ticks_before" -v a="$ticks_after" -v o1="$own_before" -v o2="$own_after" -v n="$ncores" '
        BEGIN { split(b, x, " "); split(a, y, " "); t = y[2] - x[2]
                if (t <= 0) { print "unknown no"; exit }
                u = (y[1] - x[1] - (o2 - o1)) / (t / n); if (u < 0) u = 0
                printf "%.2f %s\n", u, (u < 0.1 ? "yes" : "no") }')"
    local cores="the $ncores cores it ran on"
    [ "$ncores" = 1 ] && cores="core ${allowed:-?}, the one it ran on"
    if [ "$idle" = yes ]; then
        busy="idle: other processes used $others of a core on $cores"
    else
        busy="**under load**: other processes used $others of a core on $cores"
    fi
    busy="$busy; load average $load_before before, $load_after after"
}

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

max() { awk -v a="$1" -v b="$2" 'BEGIN { print (a > b ? a : b) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else printf "-" }'; }
int() { printf '%.0f' "$1"; }

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

# ---- part 1: our benchmark games ----
ours_section="" ours_readme=""
if [ "${OURS:-1}" != 0 ]; then
    mark_start
    hc_bin=""
    if [ -f "$HANDCODED" ] && cc -O3 -o "$tmp/handcoded" "$HANDCODED" 2>/dev/null; then hc_bin=$tmp/handcoded; fi
    # name, file, handcoded.c's game (- for none)
    games="tictactoe games/tictactoe.kif ttt
connect4 games/connect4.kif c4
breakthrough games/breakthrough.kif -"
    for g in connectFour breakthroughWalls dotsAndBoxes; do
        [ -f "$CORPUS_DIR/$g.kif" ] && games="$games
$g $CORPUS_DIR/$g.kif -"
    done
    rows="" short="" base_rows="" base_short="" failed=""
    while read -r game path hcg <&3; do
        echo "bench: $game ($REPEAT rounds of $SECS s per engine)..." >&2
        ip=0 gp=0 cp=0 hc=0 bb=0 gs=0 cs=""
        for _ in $(seq "$REPEAT"); do
            read -r p _ _ _ <<<"$(run1 "$path" interp "$SECS")"
            ip=$(max "$p" "$ip")
            read -r p g _ _ <<<"$(run1 "$path" ground "$SECS")"
            if awk -v a="$p" -v b="$gp" 'BEGIN { exit !(a > b) }'; then gp=$p gs=$g; fi
            read -r p _ c _ <<<"$(run1 "$path" compiled "$SECS")"
            [ -z "$cs" ] && cs=$c # the first: an empty cache
            cp=$(max "$p" "$cp")
            if [ "$hcg" != - ] && [ -n "$hc_bin" ]; then
                p=$("$hc_bin" "$hcg" "$SECS" | sed -n 's/.*playouts\/s \([0-9.]*\).*/\1/p')
                hc=$(max "${p:-0}" "$hc")
            fi
            if [ -n "${BASELINE:-}" ]; then
                read -r p _ _ _ <<<"$(run1 "$path" compiled "$SECS" "$BASELINE")"
                bb=$(max "$p" "$bb")
            fi
        done
        for v in "$ip" "$gp" "$cp"; do [ "$v" = 0 ] && failed="$failed $game"; done
        fast=$(max "$gp" "$cp")
        hcol="-" hr="-"
        if awk -v a="$hc" 'BEGIN { exit !(a > 0) }'; then hcol=$(int "$hc") hr="1/$(ratio "$hc" "$fast")"; fi
        if [ -n "${BASELINE:-}" ]; then
            base_rows="$base_rows| $game | $(int "$cp") | $(int "$bb") | $(ratio "$cp" "$bb")x |"$'\n'
            base_short="$base_short $game $(ratio "$cp" "$bb")x,"
        fi
        tgt=$(target "$game" "$fast")
        rows="$rows| $game | $(int "$ip") | $(int "$gp") | $(int "$cp") | $(ratio "$gp" "$ip")x | $(ratio "$cp" "$ip")x | $hcol | $hr | $gs | $cs | $tgt |"$'\n'
        short="$short| $game | $(int "$ip") | $(int "$gp") | $(int "$cp") | $(ratio "$cp" "$ip")x | $hcol | $hr | $tgt |"$'\n'
    done 3<<<"$games"
    if [ -n "$failed" ]; then
        echo "bench.sh: a run failed (0 playouts/s) on:$failed; nothing written" >&2
        exit 1
    fi
    mark_end
    ours_section=$(
        echo "Produced by \`scripts/bench.sh\` on $when-$ended UTC ($commit). Machine: $machine;"
        echo "$busy."
        echo "\`ggp bench GAME --seconds $SECS --engine E\`, one thread, Release build; $REPEAT rounds in which"
        echo "the engines take turns, each figure the best of its $REPEAT runs (the least disturbed one)."
        echo "Playouts/s:"
        echo
        echo "| game | interp | ground | compiled | ground/interp | compiled/interp | handcoded.c | ratio to handcoded | ground s | compile s | target |"
        echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
        printf '%s' "$rows"
        echo
        echo "- interp: the interpreter (engine/reason.c); ground: the grounded network with"
        echo "  change-driven propagation (engine/prop.c; the levelled evaluator on networks with"
        echo "  recursion); compiled: the network as C code with the whole playout loop, cc -O1,"
        echo "  dlopen (engine/compile.c; docs/engine.md)."
        echo "- connectFour, breakthroughWalls, dotsAndBoxes: the corpus's games (connectFour is 8"
        echo "  columns by 6 rows, connect4 7 by 6)."
        echo "- handcoded.c: ../shared/bench/handcoded.c (bitboards, cc -O3; tic-tac-toe and 7x6"
        echo "  connect four only), in the same rounds; the ratio compares it with our faster engine."
        echo "- compile s: with an empty cache (the object is cached per game text afterwards)."
        echo "- target: issue 14's one-core target, met or missed by how much by our faster engine"
        echo "  (a figure measured under load is low; the ratios hold better)."
        if [ -n "$base_rows" ]; then
            echo
            echo "Compiled engine against the baseline \`$BASELINE\` (its compiled engine), in the"
            echo "same rounds, best of $REPEAT each:"
            echo
            echo "| game | ours | baseline | ours/baseline |"
            echo "|---|---:|---:|---:|"
            printf '%s' "$base_rows"
        fi
    )
    ours_readme=$(
        echo "Measured $when UTC ($commit) on $machine, $busy (best of $REPEAT runs of"
        echo "$SECS s, one thread, playouts/s; \`docs/bench.md\`):"
        echo
        echo "| game | interpreter | ground | compiled | compiled/interp | handcoded.c | ratio to handcoded | target (one core) |"
        echo "|---|---:|---:|---:|---:|---:|---:|---|"
        printf '%s' "$short"
        if [ -n "$base_short" ]; then
            echo
            echo "Compiled engine over the baseline build (same rounds, so load cancels out):${base_short%,}."
        fi
    )
fi

# ---- part 2: the corpus ----
# One line per game in $CRES (tab-separated: name, grounds, nodes, literals, ground s,
# engine, compile s, playouts/s of that engine, of the interpreter, avg length), written as
# each game is done: a run that stops (CORPUS_BUDGET, ^C) is resumed by the next; a fresh
# run (CORPUS_FRESH=1, or the results file absent) starts with an empty compile cache, so
# that compile times are real. $CRUNS: one line per run that measured games (start, end,
# commit, games, how busy).
corpus_section="" corpus_readme=""
if [ "${CORPUS:-1}" != 0 ] && [ -d "$CORPUS_DIR" ]; then
    CRES=${CORPUS_RESULTS:-build/bench-corpus.tsv}
    CRUNS=${CRES%.tsv}.runs
    CCACHE=${CRES%.tsv}-cache
    mkdir -p "$(dirname "$CRES")"
    if [ "${CORPUS_FRESH:-0}" = 1 ] || [ ! -f "$CRES" ]; then
        : >"$CRES"
        : >"$CRUNS"
        rm -rf "$CCACHE"
    fi
    mkdir -p "$CCACHE"
    touch "$CRUNS"
    mark_start
    cstart=$(date +%s) stopped=0 total=0 measured=0
    for path in "$CORPUS_DIR"/*.kif "$CORPUS_DIR"/*.gdl; do
        [ -f "$path" ] || continue
        name=$(basename "$path")
        if [ -n "${CORPUS_GAMES:-}" ] && ! grep -qxF "${name%.*}" "$CORPUS_GAMES"; then continue; fi
        total=$((total + 1))
        cut -f1 "$CRES" | grep -qxF "$name" && continue # done by an earlier run
        if [ "$stopped" = 1 ] || { [ "${CORPUS_BUDGET:-0}" != 0 ] && [ $(($(date +%s) - cstart)) -ge "$CORPUS_BUDGET" ]; }; then
            stopped=1
            continue # counted, not measured
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
        measured=$((measured + 1))
    done
    mark_end
    [ "$measured" -gt 0 ] && printf '%s\t%s\t%s\t%s\t%s\n' "$when" "$ended" "$commit" "$measured" "$busy" >>"$CRUNS"
    corpus_rows=$(awk -F'\t' 'function fmt(x) { return x >= 100 ? sprintf("%.0f", x) : sprintf("%.1f", x) }
    {
        r = ($9 > 0 && $8 > 0) ? sprintf("%.1fx", $8 / $9) : "-"
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, fmt($8), fmt($9), r
    }' "$CRES")$'\n'
    summary=$(awk -F'\t' -v total="$total" '
        { n++; if ($2 == "yes") g++; if ($6 == "compiled") c++
          if ($8 > 0) { pps[++np] = $8; if ($9 > 0) sp[++ns] = $8 / $9 } }
        function median(a, k,   i, j, t) {
            for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
            return k ? (k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2) : 0 }
        END {
            printf "%d of %d corpus games measured%s: %d ground, %d run compiled code.", n, total, n < total ? " (**not finished**: run again to go on)" : "", g, c
            if (np) { m = median(pps, np); printf " Playouts/s of the engine chosen: median %.0f, worst %.3g.", m, pps[1] }
            if (ns) { m = median(sp, ns); printf " Its speed over the interpreter: median %.1fx, worst %.2gx.", m, sp[1] }
        }' "$CRES")
    runs=$(awk -F'\t' '{ printf "- %s-%s UTC (%s), %d games: %s.\n", $1, $2, $3, $4, $5 }' "$CRUNS")
    corpus_section=$(
        echo "Produced by \`scripts/bench.sh\` (machine: $machine), in these runs:"
        echo
        echo "$runs"
        echo
        echo "$summary One run of $CSECS s per engine and game, the interpreter's and then"
        echo "\`ggp bench GAME\`'s (the engine \`auto\` chooses; compile s with an empty cache;"
        echo "literals: the ground network's size). Under load the figures are low; the ratio"
        echo "over the interpreter, of two runs one after the other, holds better."
        echo
        echo "| game | grounds | nodes | literals | ground s | engine | compile s | playouts/s | interp playouts/s | over interp |"
        echo "|---|---|---:|---:|---:|---|---:|---:|---:|---:|"
        printf '%s' "$corpus_rows"
    )
    # the README: the runs' dates and commits, in order, and whether any was under load
    corpus_readme=$(awk -F'\t' -v summary="$summary" '
        { d = substr($1, 1, 10); if (!(d in sd)) { sd[d]; ds = ds (ds ? ", " : "") d }
          if (!($3 in sc)) { sc[$3]; cs = cs (cs ? ", " : "") $3 }
          if ($5 ~ /under load/) load = 1 }
        END { printf "Corpus (`docs/bench.md`; %s on %s, %s): %s\n", ds, cs,
                  load ? "**under load**: the ratios over the interpreter hold better than the figures" : "idle", summary }' "$CRUNS")
fi

# ---- writing ----
# splice FILE MARK TEXT: FILE's lines between its <!-- MARK:begin --> and <!-- MARK:end -->
# lines replaced by TEXT (lib.sh's replace_section), into FILE.bench-new (fails, writing
# nothing, when FILE lacks the markers: replace_section would append the section)
splice() {
    local src=$1 b="<!-- $2:begin -->" e="<!-- $2:end -->"
    [ -f "$1.bench-new" ] && src=$1.bench-new
    if ! grep -qxF "$b" "$src" || ! grep -qxF "$e" "$src"; then
        echo "bench.sh: $1 has no $b ... $e markers: not written" >&2
        return 1
    fi
    [ "$src" = "$1.bench-new" ] || cp "$1" "$1.bench-new"
    { echo "$b" && printf '%s\n' "$3" && echo "$e"; } >"$tmp/section"
    replace_section "$1.bench-new" "$2" "$tmp/section"
}

if [ ! -f "$OUT" ]; then # a new file: the title and the markers
    mkdir -p "$(dirname "$OUT")"
    printf '%s\n' "# Benchmark: random playouts" "" "## Our games" "" "<!-- bench:ours:begin -->" \
        "<!-- bench:ours:end -->" "" "## Corpus" "" "<!-- bench:corpus:begin -->" \
        "<!-- bench:corpus:end -->" >"$OUT.bench-new"
fi
if [ -n "$ours_section" ]; then
    splice "$OUT" bench:ours "$ours_section"
    [ -n "$README" ] && splice "$README" bench "$ours_readme"
fi
if [ -n "$corpus_section" ]; then
    splice "$OUT" bench:corpus "$corpus_section"
    [ -n "$README" ] && splice "$README" bench:corpus "$corpus_readme"
fi
for f in "$OUT" "$README"; do
    if [ -n "$f" ] && [ -f "$f.bench-new" ]; then mv "$f.bench-new" "$f"; fi
done
[ -n "$ours_section" ] && printf '%s\n\n' "$ours_section"
[ -n "$corpus_section" ] && printf '%s\n' "$corpus_section"
exit 0
