#!/usr/bin/env bash
# lbs_matches.sh [GAME...]: the match series of issue 5, `mcts+lbs` against `mcts` at
# equal clocks, MATCHES matches per game with --swap (seats alternate), and writes
# docs/lbs_matches.md from the results (the table, the machine-readable lines, the search
# and backward-search counters, the clocks).
#
# GAME is a name in games/ (tictactoe, connect4, breakthrough: the default is all three).
# Each game's raw output goes to $RAW/GAME.out (stdout of ggp match) and GAME.err (stderr),
# then the document is written from every GAME.out in $RAW, so one game can be (re)run on
# its own and the document rebuilt with the others. Games run JOBS at a time (the matches
# are bounded by the clocks, not by the CPU).
# Environment: GGP (default build/ggp, built if missing), MATCHES (100), STARTCLOCK (3),
# PLAYCLOCK (0.3), SEED (1), JOBS (1), CONFIRM (z3), LBS (extra mcts+lbs options, e.g.
# ":hookcost=0"), RAW (/tmp/lbs_matches), OUT (docs/lbs_matches.md), DOC_ONLY=1 (only
# rewrite the document from $RAW).
set -eu
cd "$(dirname "$0")/.."
GGP=${GGP:-build/ggp}
MATCHES=${MATCHES:-100}
STARTCLOCK=${STARTCLOCK:-3}
PLAYCLOCK=${PLAYCLOCK:-0.3}
SEED=${SEED:-1}
JOBS=${JOBS:-1}
CONFIRM=${CONFIRM:-z3}
LBS=${LBS:-}
RAW=${RAW:-/tmp/lbs_matches}
OUT=${OUT:-docs/lbs_matches.md}
GAMES=("$@")
[ ${#GAMES[@]} -gt 0 ] || GAMES=(tictactoe connect4 breakthrough)

if [ ! -x "$GGP" ]; then
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build build -j 2 --target ggp >/dev/null
    GGP=build/ggp
fi
mkdir -p "$RAW"

play() { # game
    local g=$1
    local cmd=("$GGP" match "games/$g.kif" --players "mcts+lbs$LBS,mcts" --startclock "$STARTCLOCK"
        --playclock "$PLAYCLOCK" --matches "$MATCHES" --swap --seed "$SEED" --confirm "$CONFIRM")
    echo "lbs_matches: ${cmd[*]}" >&2
    {
        echo "# command: ${cmd[*]}"
        echo "# started: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    } >"$RAW/$g.out"
    local t0=$SECONDS rc=0
    "${cmd[@]}" >>"$RAW/$g.out" 2>"$RAW/$g.err" || rc=$?
    {
        echo "# exit: $rc"
        echo "# seconds: $((SECONDS - t0))"
    } >>"$RAW/$g.out"
    echo "lbs_matches: $g done (exit $rc, $((SECONDS - t0)) s)" >&2
}

if [ "${DOC_ONLY:-0}" != 1 ]; then
    running=0
    for g in "${GAMES[@]}"; do
        [ -f "games/$g.kif" ] || { echo "lbs_matches: no games/$g.kif" >&2; exit 2; }
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
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
machine="$(nproc) cores, ${cpu:-$(uname -m)}"
# a hand-written reading of the results, between these markers, survives a rewrite
notes=""
[ -f "$OUT" ] && notes=$(sed -n '/<!-- notes:begin -->/,/<!-- notes:end -->/p' "$OUT")
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "no commit")
[ -n "$(git status --porcelain -- gdl regress mcts server cli 2>/dev/null)" ] && commit="$commit + local changes"
{
    echo "# mcts+lbs against mcts"
    echo
    echo "Written by \`scripts/lbs_matches.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC') ($machine, shared"
    echo "with other work; $commit). Raw output: \`$RAW\`."
    echo
    echo "Each game: \`ggp match GAME --players mcts+lbs,mcts --swap\` (the seats alternate), the same"
    echo "clocks for both players. \`mcts+lbs\` runs backward search during the start clock, then"
    echo "UCT whose rollouts stop at a state matching some α_i (value 100) or β_i (value 0),"
    echo "each hit confirmed by Z3 (\`--confirm z3\`) before it is used. The \`lbs player=\` lines"
    echo "are the search counters summed over the matches (\`docs/mcts.md\` explains them)."
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
        if [ -f "$RAW/$g.err" ]; then
            msgs=$(grep -v '^match \|^ggp match: games' "$RAW/$g.err" | sort | uniq -c | head -20 || true)
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
