#!/usr/bin/env bash
# killer_experiment.sh: the killer card game experiment of issue 15, written to
# docs/killer.md with two plots in docs/img/.
#
#   1. Win rates on killer_small (MATCHES matches per series, seats rotated with --swap):
#      one `deduce` player against two `random` players, against two `mcts` players, and
#      the baseline of one `random` player against two `random` players. Win rates get
#      95% Wilson intervals.
#   2. When the killer becomes provable: the matches of three `deduce` players on
#      killer_small are recorded (--trace) and replayed through `ggp belief` for each
#      player (the first PROVABLE_MATCHES matches, default 40): the first completed turn
#      (fluent `turns`) after which the killer card is entailed for it, and the time per
#      Z3 check by turn.
#   3. Beyond the paper: `deduce:choose=info` asks what tells most about the cards (the
#      mutual information between sampled worlds and its next percepts): one such player
#      against two plain `deduce`, and three of them, replayed as in 2.
#   4. The paper's player as the baseline: `deduce:choose=random` asks and places at
#      random and accuses as soon as Z3 proves the killer (the AI of the killer paper).
#      One `deduce` (and one `deduce:choose=info`) against two of them, and three of them
#      (the equal seat).
#      Beyond the paper again: `deduce:choose=secret` plays, among the safe moves, the one
#      that shows the other players least (their percepts' surprisal under a mirror of
#      their belief): one against two of the paper's players.
#   5. The full game: FULL_MATCHES matches of three FULL_PLAYER players on
#      games/killer.kif at FULL_PLAYCLOCK seconds per move: wins, draws, timeouts,
#      duration. FULL_NAME (full_deduce3) names the series: run more batches as
#      full_deduce3_b, ... (with another SEED); the document sums every full_deduce3*.
#      FULL_ARGS: more `ggp match` options (--verbose: every missed clock in the .err).
#      LOADED_MATCHES (default 0: not run): as many more matches of the full game with
#      one busy loop per core running beside them (series full_loaded).
#   BATCH=b (with another SEED) runs the killer_small series again into NAME_b files; the
#      tables sum every batch of a series.
#
# Raw outputs go to $RAW (one file per series, "# " lines with command, exit and
# seconds); DOC_ONLY=1 rewrites the document from them. Environment: GGP (build/ggp),
# MATCHES (100), FULL_MATCHES (100), PLAYCLOCK (1), FULL_PLAYCLOCK (1), FULL_PLAYER
# (deduce:playouts=4), STARTCLOCK (10), SEED (1), RAW (/tmp/killer_experiment), OUT
# (docs/killer.md), ONLY (run only these series: deduce_random random_random
# deduce_mcts deduce3 info_deduce deduce3_info provable deduce_paper info_paper
# secret_paper paper3 full_deduce3 full_loaded). Runs under nice; progress
# on stderr. A hand-written reading between <!-- notes:begin --> and <!-- notes:end -->
# in $OUT is kept, and so is scripts/killer_clock.sh's block.
set -eu
case ${1:-} in -h | --help) sed '1d; /^[^#]/,$d' "$0"; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
. scripts/lib.sh
GGP=${GGP:-build/ggp}
MATCHES=${MATCHES:-100}
FULL_MATCHES=${FULL_MATCHES:-100}
PLAYCLOCK=${PLAYCLOCK:-1}
FULL_PLAYCLOCK=${FULL_PLAYCLOCK:-1}
FULL_PLAYER=${FULL_PLAYER:-deduce:playouts=4:worlds=1}
FULL_NAME=${FULL_NAME:-full_deduce3}
PAPER=deduce:choose=random
STARTCLOCK=${STARTCLOCK:-10}
SEED=${SEED:-1}
PROVABLE_MATCHES=${PROVABLE_MATCHES:-40}
RAW=${RAW:-/tmp/killer_experiment}
OUT=${OUT:-docs/killer.md}
SMALL=games/killer_small.kif
FULL=games/killer.kif

if [ "${DOC_ONLY:-0}" != 1 ]; then
    GGP=$(ensure_ggp "$GGP") || exit 1
    command -v gnuplot >/dev/null || {
        echo "killer_experiment: gnuplot missing (bash scripts/setup.sh installs it)" >&2
        exit 1
    }
fi
mkdir -p "$RAW" docs/img

series() { # name game players playclock matches [--trace]
    local name=$1 game=$2 players=$3 clock=$4 n=$5
    shift 5
    wanted "$name" || return 0
    local f="$RAW/$name${BATCH:+_$BATCH}"
    local cmd=("$GGP" match "$game" --players "$players" --startclock "$STARTCLOCK"
        --playclock "$clock" --matches "$n" --swap --seed "$SEED" "$@")
    echo "killer_experiment: ${cmd[*]}" >&2
    echo "# command: ${cmd[*]}" >"$f.out"
    local t0=$SECONDS rc=0
    local pre=(nice)
    [ "${NO_NICE:-0}" = 1 ] && pre=() # beside busy loops: at their priority
    "${pre[@]}" "${cmd[@]}" >>"$f.out" 2>"$f.err" || rc=$?
    printf '# exit: %s\n# seconds: %s\n' "$rc" "$((SECONDS - t0))" >>"$f.out"
    echo "killer_experiment: $name done (exit $rc, $((SECONDS - t0)) s)" >&2
}

wanted() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }

# The first turn count after which each role's killer is entailed, and the check times:
# one `ggp belief` run per match and role over the recorded traces of a series.
provable() { # series
    local traces=$RAW/$1.out out=$RAW/provable_$1.txt dir=$RAW/moves_$1
    rm -rf "$dir" && mkdir -p "$dir"
    awk -v dir="$dir" '/^game /{ m++ } /^does /{ print substr($0, 6) > (dir "/" m ".moves") }' "$traces"
    : >"$out"
    local m
    for m in $(seq 1 "$PROVABLE_MATCHES"); do
        local mv=$dir/$m.moves
        [ -f "$mv" ] || continue
        for role in p1 p2 p3; do
            nice "$GGP" belief "$SMALL" --role "$role" --moves "$mv" --cap 1 |
                awk -v m="$m" -v role="$role" '
                    /^step / { ms = $10; checks = $8 }
                    /^entailed / {
                        turn = -1
                        if (match($0, /\(turns [0-9]+\)/)) turn = substr($0, RSTART + 7, RLENGTH - 8) + 0
                        if (turn >= 0) printf("check match=%s role=%s turn=%d ms=%s checks=%s\n", m, role, turn, ms, checks)
                        if (!done && $0 ~ /\(killer /) { done = 1; printf("provable match=%s role=%s turn=%d\n", m, role, turn) }
                    }
                    END { if (!done) printf("provable match=%s role=%s turn=never\n", m, role) }'
        done
    done >>"$out"
}

if [ "${DOC_ONLY:-0}" != 1 ]; then
    series deduce_random "$SMALL" deduce,random,random "$PLAYCLOCK" "$MATCHES"
    series random_random "$SMALL" random,random,random "$PLAYCLOCK" "$MATCHES"
    series deduce_mcts "$SMALL" deduce,mcts,mcts "$PLAYCLOCK" "$MATCHES"
    series deduce3 "$SMALL" deduce,deduce,deduce "$PLAYCLOCK" "$MATCHES" --trace
    series info_deduce "$SMALL" deduce:choose=info,deduce,deduce "$PLAYCLOCK" "$MATCHES"
    series deduce3_info "$SMALL" deduce:choose=info,deduce:choose=info,deduce:choose=info "$PLAYCLOCK" \
        "$MATCHES" --trace
    if wanted provable; then
        provable deduce3
        provable deduce3_info
    fi
    series deduce_paper "$SMALL" "deduce,$PAPER,$PAPER" "$PLAYCLOCK" "$MATCHES"
    series info_paper "$SMALL" "deduce:choose=info,$PAPER,$PAPER" "$PLAYCLOCK" "$MATCHES"
    series secret_paper "$SMALL" "deduce:choose=secret,$PAPER,$PAPER" "$PLAYCLOCK" "$MATCHES"
    series paper3 "$SMALL" "$PAPER,$PAPER,$PAPER" "$PLAYCLOCK" "$MATCHES"
    # shellcheck disable=SC2086 # FULL_ARGS: extra ggp match options, split on purpose
    series "$FULL_NAME" "$FULL" "$FULL_PLAYER,$FULL_PLAYER,$FULL_PLAYER" "$FULL_PLAYCLOCK" \
        "$FULL_MATCHES" ${FULL_ARGS:-}
    if [ "${LOADED_MATCHES:-0}" -gt 0 ] && wanted full_loaded; then
        trap stop_load EXIT
        start_load
        # shellcheck disable=SC2086
        NO_NICE=1 series full_loaded "$FULL" "$FULL_PLAYER,$FULL_PLAYER,$FULL_PLAYER" "$FULL_PLAYCLOCK" \
            "$LOADED_MATCHES" ${FULL_ARGS:-}
        stop_load
    fi
fi

# ---- the document ----
# "player=NAME matches=N ... wins=W draws=D losses=L slowest_move_ms=M timeouts=T" of the
# first player (the one the series is about)
row() { # series label: its batches (NAME.out, NAME_b.out, ...) summed
    local files=() f
    for f in "$RAW/$1.out" "$RAW/$1"_?.out; do [ -f "$f" ] && files+=("$f"); done
    [ ${#files[@]} -gt 0 ] || return 0
    awk -v label="$2" '
        FNR == 1 { seen = 0 }
        /^player=/ && !seen {
            seen = 1
            for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            n += v["matches"]; w += v["wins"]; dr += v["draws"]; l += v["losses"]; t += v["timeouts"]
            if (v["slowest_move_ms"] + 0 > sl) sl = v["slowest_move_ms"] + 0
        }
        END {
            z = 1.96; p = n ? w / n : 0
            d = 1 + z * z / n; c = (p + z * z / (2 * n)) / d
            h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
            printf("| %s | %d | %d | %d | %d | %.1f%% [%.1f, %.1f] | %d | %d |\n", label, n, w, dr,
                   l, 100 * p, 100 * (c - h), 100 * (c + h), sl, t)
        }' "${files[@]}"
}

# The full game's rows, summed over the batches given, per player (seat label).
full_table() {
    cat "$@" | awk '/^player=/ {
                for (i = 1; i <= NF; i++) { e = index($i, "="); v[substr($i, 1, e - 1)] = substr($i, e + 1) }
                k = v["player"]; if (!(k in n)) order[++no] = k
                n[k] += v["matches"]; w[k] += v["wins"]; dr[k] += v["draws"]; l[k] += v["losses"]
                t[k] += v["timeouts"]; il[k] += v["illegal"]
                if (v["slowest_move_ms"] + 0 > sl[k]) sl[k] = v["slowest_move_ms"] + 0 }
            END { z = 1.96
                for (j = 1; j <= no; j++) { k = order[j]; m = n[k]; p = m ? w[k] / m : 0
                    d = 1 + z * z / m; c = (p + z * z / (2 * m)) / d
                    h = z * sqrt(p * (1 - p) / m + z * z / (4 * m * m)) / d
                    printf("| %s | %d | %d | %d | %d | %.1f%% [%.1f, %.1f] | %d | %d | %d |\n", k, m, w[k], dr[k],
                           l[k], 100 * p, 100 * (c - h), 100 * (c + h), sl[k], t[k], il[k]) } }'
}

plots() {
    local have=0 s
    for s in deduce3 deduce3_info; do
        local p=$RAW/provable_$s.txt
        [ -f "$p" ] || continue
        have=1
        awk '/^provable/ { split($4, t, "="); if (t[2] != "never") n[t[2]]++ }
             END { for (k in n) print k, n[k] }' "$p" | sort -n >"$RAW/provable_$s.dat"
        awk '/^check/ { split($4, t, "="); split($5, m, "="); s[t[2]] += m[2]; c[t[2]]++ }
             END { for (k in s) print k, s[k] / c[k] }' "$p" | sort -n >"$RAW/check_ms_$s.dat"
    done
    [ "$have" = 1 ] || return 0
    touch "$RAW/provable_deduce3_info.dat" "$RAW/check_ms_deduce3_info.dat"
    gnuplot <<EOF
set terminal pngcairo size 800,400 noenhanced
set output "docs/img/killer_provable.png"
set title "killer_small, three deducing players: completed turns when a player's killer became provable"
set xlabel "completed turns"
set ylabel "players"
set style data linespoints
plot "$RAW/provable_deduce3.dat" using 1:2 title "deduce (asks by playouts)", \
     "$RAW/provable_deduce3_info.dat" using 1:2 title "deduce:choose=info (asks for information)"
set output "docs/img/killer_check_ms.png"
set title "killer_small: Z3 time per check (ms, mean over players and matches) by completed turns"
set ylabel "ms per check"
plot "$RAW/check_ms_deduce3.dat" using 1:2 title "deduce", \
     "$RAW/check_ms_deduce3_info.dat" using 1:2 title "deduce:choose=info"
EOF
}

notes="" clock=""
if [ -f "$OUT" ] && grep -q '<!-- notes:begin -->' "$OUT"; then
    notes=$(sed -n '/<!-- notes:begin -->/,/<!-- notes:end -->/p' "$OUT")
fi
if [ -f "$OUT" ] && grep -q '<!-- clock:begin -->' "$OUT"; then # scripts/killer_clock.sh's
    clock=$(sed -n '/<!-- clock:begin -->/,/<!-- clock:end -->/p' "$OUT")
fi
plots
{
    echo "# The killer card game, played by deduction"
    echo
    echo "Written by \`scripts/killer_experiment.sh\` ($(date -u '+%Y-%m-%d')); rules in the header of"
    echo "\`games/killer.kif\` (full game, 28 cards) and \`games/killer_small.kif\` (10 cards, hands of 3)."
    echo "The \`deduce\` player (\`player/player_deduce.c\`) asks the Z3 belief reasoner"
    echo "(\`player/bsmt.c\`) whether a move wins in every world consistent with what it saw; on"
    echo "this game that is \"accuse when the killer card is entailed\". It never gambles (a move"
    echo "that may lower its goal, such as an unproved accusation, is left out) and otherwise"
    echo "chooses by playouts over worlds consistent with what it saw; \`deduce:choose=secret\`"
    echo "first keeps the moves that show the other players least (the surprisal of their"
    echo "percepts under mirrors of their beliefs). Seats rotate (\`--swap\`); win rates are the"
    echo "first player's, with 95% Wilson intervals, summed over the batches of a series (seeds"
    echo "1 and 2); the clocks are those of the commands at the end."
    echo
    echo "## Win rates on killer_small"
    echo
    echo "| series (first player vs two) | matches | wins | draws | losses | win rate [95% CI] | slowest move ms | timeouts |"
    echo "|---|---|---|---|---|---|---|---|"
    row deduce_random "deduce vs random, random"
    row deduce_mcts "deduce vs mcts, mcts"
    row random_random "random vs random, random (baseline)"
    row deduce3 "deduce vs deduce, deduce"
    row info_deduce "deduce:choose=info vs deduce, deduce"
    row deduce3_info "deduce:choose=info vs two of the same"
    echo
    if [ -f "$RAW/deduce_paper.out" ] || [ -f "$RAW/paper3.out" ]; then
        echo "## Against the paper's player (killer_small)"
        echo
        echo "The killer paper's AI asks and places at random and accuses as soon as Z3 proves the"
        echo "killer card: \`$PAPER\` (the same reasoner and the same proved accusations as"
        echo "\`deduce\`; only the choice among safe moves is random). Three of them give the equal"
        echo "seat (1/3 by symmetry, seats rotating; draws are rare); a player that chooses better"
        echo "wins clearly more than that against two of them."
        echo
        echo "| series (first player vs two) | matches | wins | draws | losses | win rate [95% CI] | slowest move ms | timeouts |"
        echo "|---|---|---|---|---|---|---|---|"
        row deduce_paper "deduce vs paper, paper"
        row info_paper "deduce:choose=info vs paper, paper"
        row secret_paper "deduce:choose=secret vs paper, paper"
        row paper3 "paper vs paper, paper (equal seat)"
        echo
    fi
    if [ -f "$RAW/provable_deduce3.txt" ]; then
        echo "## When the killer becomes provable (killer_small, three deducing players)"
        echo
        echo "Each match of three \`deduce\` players (and of three \`deduce:choose=info\`) was"
        echo "recorded and replayed through \`ggp belief\` for every player: the number of completed"
        echo "turns (fluent \`turns\`) at the first step where the killer card is entailed for it."
        echo
        echo "| players | player-matches | killer provable for | mean completed turns then | Z3 checks | ms per check |"
        echo "|---|---|---|---|---|---|"
        for s in deduce3 deduce3_info; do
            [ -f "$RAW/provable_$s.txt" ] || continue
            awk -v label="$s" '/^provable/ { n++; split($4, t, "="); if (t[2] != "never") { s += t[2]; k++ } }
                 /^check/ { split($5, m, "="); split($6, c, "="); ms += m[2] * c[2]; checks += c[2] }
                 END { printf("| %s | %d | %d | %.2f | %d | %.2f |\n", label, n, k, k ? s / k : 0, checks, checks ? ms / checks : 0) }' \
                "$RAW/provable_$s.txt"
        done
        echo
        echo "A player for whom the killer never became provable saw the match end first (another"
        echo "player accused)."
        echo
        echo "![turn of the first provable accusation](img/killer_provable.png)"
        echo
        echo "![Z3 time per check by turn](img/killer_check_ms.png)"
        echo
        echo "That the reasoner's answers are exact is tested, not measured here:"
        echo "\`tests/unit/test_bsmt.c\` compares its entailed fluents with brute-force belief sets"
        echo "at every step of random killer_small matches (and guess, MontyHall, MontyHall-20door),"
        echo "and \`tests/unit/test_deduce.c\` checks that a deducing player accuses exactly when the"
        echo "enumeration entails the killer."
        echo
    fi
    if cat "$RAW"/full_deduce3*.out 2>/dev/null | grep -q '^player='; then
        echo "## The full game: three deducing players"
        echo
        echo "| player | matches | wins | draws | losses | win rate [95% CI] | slowest move ms | timeouts | illegal |"
        echo "|---|---|---|---|---|---|---|---|---|"
        full_table "$RAW"/full_deduce3*.out
        echo
        for f in "$RAW"/full_deduce3*.out; do
            echo "- $(awk '/^# seconds:/ { print $3 }' "$f") s: \`$(sed -n 's/^# command: //p' "$f")\`"
        done
        echo
    fi
    if [ -f "$RAW/full_loaded.out" ] && grep -q '^player=' "$RAW/full_loaded.out"; then
        echo "## The full game under load: one busy loop per core beside the match"
        echo
        echo "| player | matches | wins | draws | losses | win rate [95% CI] | slowest move ms | timeouts | illegal |"
        echo "|---|---|---|---|---|---|---|---|---|"
        full_table "$RAW/full_loaded.out"
        echo
        echo "- $(awk '/^# seconds:/ { print $3 }' "$RAW/full_loaded.out") s, with \`nproc\` busy loops: \`$(sed -n 's/^# command: //p' "$RAW/full_loaded.out")\`"
        echo
    fi
    echo "## Commands"
    echo
    for f in "$RAW"/*.out; do
        echo "- \`$(sed -n 's/^# command: //p' "$f")\` ($(awk '/^# seconds:/ { print $3 }' "$f") s, exit $(awk '/^# exit:/ { print $3 }' "$f"))"
    done
    echo
    if [ -n "$notes" ]; then echo "$notes"; else
        echo "<!-- notes:begin -->"
        echo "<!-- notes:end -->"
    fi
    if [ -n "$clock" ]; then
        echo
        echo "$clock"
    fi
} >"$OUT"
echo "killer_experiment: wrote $OUT" >&2
