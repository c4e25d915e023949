#!/usr/bin/env bash
# lbs_matches.sh [GAME...]: the match series of issue 5, `mcts+lbs` against `mcts` at
# equal clocks, MATCHES matches per game with --swap (seats alternate), and writes
# docs/lbs_matches.md from the results: a summary table, then per game and series the
# results table, the machine-readable lines, the search and backward-search counters and
# the clocks.
#
# GAME is a name in games/ (tictactoe, connect4, breakthrough: the default is all three) or
# the path of a .kif file (a corpus game: ../shared/gdl-corpus/connectFour.kif); a series
# is named by the file's base name.
# Each series' raw output goes to $RAW/GAME.CONFIRM.out (stdout of ggp match, with the
# command, start time, exit code and duration as "# " lines) and GAME.CONFIRM.err
# (stderr); the document is then written from every *.out in $RAW, so one game or one
# series can be (re)run on its own and the document rebuilt with the others. Games run
# JOBS at a time (the matches are bounded by the clocks, not by the CPU; more jobs only
# leave each player less CPU).
# Environment: GGP (default build/ggp, built if missing), MATCHES (100), STARTCLOCK (4),
# PLAYCLOCK (0.3), SEED (1), JOBS (1), CONFIRM (z3 or none: --confirm of ggp match),
# LBS (extra mcts+lbs options, e.g. ":hookcost=0"), RAW (/tmp/lbs_matches),
# OUT (docs/lbs_matches.md), DOC_ONLY=1 (only rewrite the document from $RAW).
# A hand-written reading between <!-- notes:begin --> and <!-- notes:end --> in $OUT is kept.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
GGP=${GGP:-build/ggp}
MATCHES=${MATCHES:-100}
STARTCLOCK=${STARTCLOCK:-4}
PLAYCLOCK=${PLAYCLOCK:-0.3}
SEED=${SEED:-1}
JOBS=${JOBS:-1}
CONFIRM=${CONFIRM:-z3}
LBS=${LBS:-}
RAW=${RAW:-/tmp/lbs_matches}
OUT=${OUT:-docs/lbs_matches.md}
GAMES=("$@")
[ ${#GAMES[@]} -gt 0 ] || GAMES=(tictactoe connect4 breakthrough)

if [ "${DOC_ONLY:-0}" != 1 ]; then
    GGP=$(ensure_ggp "$GGP") || exit 1
fi
mkdir -p "$RAW"

game_file() { # name or path
    case $1 in *.kif) echo "$1" ;; *) echo "games/$1.kif" ;; esac
}

play() { # game
    local g path
    path=$(game_file "$1")
    g=$(basename "$path" .kif)
    local f="$RAW/$g.$CONFIRM"
    local cmd=("$GGP" match "$path" --players "mcts+lbs$LBS,mcts" --startclock "$STARTCLOCK"
        --playclock "$PLAYCLOCK" --matches "$MATCHES" --swap --seed "$SEED" --confirm "$CONFIRM")
    echo "lbs_matches: ${cmd[*]}" >&2
    {
        echo "# command: ${cmd[*]}"
        echo "# started: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    } >"$f.out"
    local t0=$SECONDS rc=0
    "${cmd[@]}" >>"$f.out" 2>"$f.err" || rc=$?
    {
        echo "# exit: $rc"
        echo "# seconds: $((SECONDS - t0))"
    } >>"$f.out"
    echo "lbs_matches: $g ($CONFIRM) done (exit $rc, $((SECONDS - t0)) s)" >&2
}

if [ "${DOC_ONLY:-0}" != 1 ]; then
    running=0
    for g in "${GAMES[@]}"; do
        [ -f "$(game_file "$g")" ] || { echo "lbs_matches: no $(game_file "$g")" >&2; exit 2; }
        play "$g" &
        running=$((running + 1))
        if [ "$running" -ge "$JOBS" ]; then
            wait -n || true
            running=$((running - 1))
        fi
    done
    wait || true
fi

# ---- the document ----
# field NAME of a "key=value ..." line
field() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }

summary_row() { # file.out
    local f=$1 g s lbs mcts slbs smcts
    g=$(basename "$f" .out)
    s=${g#*.}
    g=${g%%.*}
    lbs=$(grep '^player=mcts+lbs' "$f" || true)
    mcts=$(grep '^player=mcts ' "$f" || true)
    slbs=$(grep '^lbs player=mcts+lbs' "$f" || true)
    smcts=$(grep -E '^(mcts|lbs) player=mcts ' "$f" || true) # 'lbs player=' before 769c58b
    [ -n "$lbs" ] || { echo "| $g | $s | (no results) | | | | | | |"; return; }
    printf '| %s | %s | %s | %s–%s–%s | %s ± %s | %s / %s | %s / %s | %s / %s | %s / %s |\n' \
        "$g" "$s" "$(echo "$lbs" | field matches)" \
        "$(echo "$lbs" | field wins)" "$(echo "$lbs" | field draws)" "$(echo "$lbs" | field losses)" \
        "$(echo "$lbs" | field mean_goal)" "$(echo "$lbs" | field ci95)" \
        "$(echo "$lbs" | field slowest_move_ms)" "$(echo "$mcts" | field slowest_move_ms)" \
        "$(echo "$slbs" | field iterations)" "$(echo "$smcts" | field iterations)" \
        "$(echo "$slbs" | field avg_rollout_len)" "$(echo "$smcts" | field avg_rollout_len)" \
        "$(echo "$slbs" | field z3_confirmed)" "$(echo "$slbs" | field z3_disagree)"
}

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
machine="$(nproc) cores, ${cpu:-$(uname -m)}"
notes=""
[ -f "$OUT" ] && notes=$(sed -n '/<!-- notes:begin -->/,/<!-- notes:end -->/p' "$OUT")
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "no commit")
[ -n "$(git status --porcelain -- gdl regress mcts server cli 2>/dev/null)" ] && commit="$commit + local changes"
{
    echo "# mcts+lbs against mcts"
    echo
    echo "Written by \`scripts/lbs_matches.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC') ($machine, shared"
    echo "with other work; checkout $commit). Raw output: \`$RAW\`."
    echo
    echo "Each series: \`ggp match GAME --players mcts+lbs,mcts --swap --confirm z3|none\` (the seats"
    echo "alternate), the same clocks for both players. \`mcts+lbs\` runs backward search during the"
    echo "start clock, then UCT whose rollouts stop at a state matching one of the cheap α_i (value"
    echo "100) or β_i (value 0); with \`--confirm z3\` each hit is confirmed by Z3 before it is used"
    echo "(or not used, when Z3 has no time for it: \`z3_skipped\`). The \`lbs player=\` lines are the"
    echo "search counters summed over the matches (\`docs/mcts.md\` explains them)."
    echo
    echo "| game | confirm | matches | mcts+lbs W–D–L | mcts+lbs mean goal ± 95% | slowest move ms (lbs / mcts) | iterations (lbs / mcts) | avg rollout length (lbs / mcts) | Z3 confirmed / disagree |"
    echo "|---|---|---:|---|---|---|---|---|---|"
    for f in "$RAW"/*.out; do
        [ -f "$f" ] && summary_row "$f"
    done
    if [ -n "$notes" ]; then
        echo
        printf '%s\n' "$notes"
    fi
    for f in "$RAW"/*.out; do
        [ -f "$f" ] || continue
        g=$(basename "$f" .out)
        echo
        echo "## $g"
        echo
        echo '```'
        grep '^# ' "$f" | sed 's/^# //'
        grep -v '^#' "$f" || true
        echo '```'
        err="$RAW/$g.err"
        if [ -f "$err" ]; then
            msgs=$(grep -v '^match \|^ggp match: games' "$err" | sort | uniq -c | head -20 || true)
            if [ -n "$msgs" ]; then
                echo
                echo "Messages on stderr (counted):"
                echo
                echo '```'
                printf '%s\n' "$msgs"
                echo '```'
            fi
        fi
    done
} >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "lbs_matches: wrote $OUT" >&2
