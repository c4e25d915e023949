#!/usr/bin/env bash
# alphabeta_table.sh [GGP]: the tarok seed's enhancement table for our alpha-beta.
#
# Searches fixed positions with `ggp alphabeta` under ten configurations, as the seed's
# table: every enhancement, every one but one (tt, history, pvs, id), each one alone, none.
# Per position a markdown table of states searched (nodes), seconds, microseconds per
# node, and the factor against none; then one line per configuration with the geometric
# mean of its node and time factors over the positions. Node counts are exact (the same on
# every run and machine for a given engine order); seconds are the least of REPEAT runs
# and depend on the load (the machine may be shared). Raw rows (one per run) go to
# $ROWS when set.
#
# A position: GAME PLIES SEED ROLE OPTIONS: the state after PLIES random joint moves of
# the walker's canonical draws with SEED (`ggp alphabeta --plies --seed`), searched for
# ROLE with the search options OPTIONS (before the configuration's). Without a depth the
# search goes to the end: the value is proven, the exact solver's. Positions too large to
# solve are searched to a fixed depth with goal values at the leaves (deterministic: every
# configuration searches the same tree, so node counts compare). A configuration that
# errs (a game or role missing) is shown as "error".
#
# Environment: REPEAT (default 3), CAP seconds per run (default 120: a run cut by it is
# shown as ">"), ENGINE (default auto), CORPUS (default ../shared/gdl-corpus beside the
# project; its positions are left out when it is missing).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
GGP=${1:-$here/build/ggp}
REPEAT=${REPEAT:-3} CAP=${CAP:-120} ENGINE=${ENGINE:-auto}
CORPUS=${CORPUS:-$here/../shared/gdl-corpus}
G=$here/games

positions=(
    "$G/tictactoe.kif 0 1 xplayer -"
    "$G/connect3_4x4.kif 0 1 red -"
    "$G/connect3_4x4.kif 3 2 black -"
    "$G/connect4.kif 10 5 red depth=7:eval=goal"
    "$G/tarok.kif 13 1 p1 -"
    "$G/tarok.kif 13 2 p2 -"
    "$G/breakthrough.kif 6 1 white depth=5:eval=goal"
)
if [ -d "$CORPUS" ]; then
    positions+=(
        "$CORPUS/nineBoardTicTacToe.kif 12 1 xplayer depth=6:eval=goal"
        "$CORPUS/quarto.kif 12 1 white depth=3:eval=goal"
        "$CORPUS/3pffa.kif 6 1 red depth=6:eval=goal"
        "$CORPUS/dotsAndBoxes.kif 10 1 xplayer depth=6:eval=goal"
    )
fi

configs=(
    "all|"
    "no table|tt=off"
    "no history|history=off"
    "no null windows|pvs=off"
    "no deepening|id=off"
    "table only|history=off:pvs=off:id=off"
    "history only|tt=off:pvs=off:id=off"
    "null windows only|tt=off:history=off:id=off"
    "deepening only|tt=off:history=off:pvs=off"
    "none|tt=off:history=off:pvs=off:id=off"
)

# run GAME PLIES SEED ROLE OPTS: "nodes seconds value proven depth" (least seconds of REPEAT)
run() {
    local best="" out
    for _ in $(seq 1 "$REPEAT"); do
        out=$("$GGP" alphabeta "$1" --plies "$2" --seed "$3" --role "$4" --options "$5" \
            --seconds "$CAP" --engine "$ENGINE" 2>/dev/null) || { echo "error"; return; }
        local n s v p d
        n=$(echo "$out" | sed 's/.*nodes=\([0-9]*\).*/\1/')
        s=$(echo "$out" | sed 's/.*seconds=\([0-9.]*\).*/\1/')
        v=$(echo "$out" | sed 's/.*value=\([-0-9]*\).*/\1/')
        p=$(echo "$out" | sed 's/.*proven=\([a-z]*\).*/\1/')
        d=$(echo "$out" | sed 's/^depth=\([0-9]*\).*/\1/')
        if [ -z "$best" ] || awk -v a="$s" -v b="${best#* }" 'BEGIN { exit !(a + 0 < b + 0) }'; then
            best="$n $s $v $p $d"
        fi
        [ -n "${ROWS:-}" ] && echo "$1 $2 $3 $4 $5 $out" >>"$ROWS"
    done
    echo "$best"
}

summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
echo "# alphabeta_table.sh: $(date -u +%Y-%m-%d), load $(cut -d' ' -f1-3 /proc/loadavg), engine $ENGINE, least of $REPEAT runs"
for pos in "${positions[@]}"; do
    read -r game plies seed role opts <<<"$pos"
    [ "$opts" = - ] && opts=""
    name=$(basename "$game" .kif)
    echo
    echo "**$name**, ply $plies (seed $seed), $role${opts:+, $opts}"
    echo
    echo "| configuration | nodes | seconds | µs/node | nodes vs none | time vs none |"
    echo "|---|---:|---:|---:|---:|---:|"
    declare -A N S V
    for c in "${configs[@]}"; do
        label=${c%%|*} o=${c#*|}
        res=$(run "$game" "$plies" "$seed" "$role" "${opts:+$opts:}$o")
        N[$label]=$(echo "$res" | cut -d' ' -f1) S[$label]=$(echo "$res" | cut -d' ' -f2)
        V[$label]=$res
    done
    for c in "${configs[@]}"; do
        label=${c%%|*}
        if [ "${V[$label]}" = error ] || [ "${V[none]}" = error ]; then
            echo "| $label | error | | | | |"
            continue
        fi
        read -r n s v p d <<<"${V[$label]}"
        cut=""
        awk -v s="$s" -v c="$CAP" 'BEGIN { exit !(s >= c) }' && cut=">"
        awk -v l="$label" -v n="$n" -v s="$s" -v n0="${N[none]}" -v s0="${S[none]}" -v c="$cut" \
            -v v="$v" -v p="$p" 'BEGIN {
                us = n ? s * 1e6 / n : 0; fn = n ? n0 / n : 0; ft = (s > 0) ? s0 / s : 0
                printf("| %s | %s%d | %s%.3f | %.1f | %.2fx | %.2fx |\n", l, c, n, c, s, us, fn, ft) }'
        echo "$label ${N[none]} $n ${S[none]} $s" >>"$summary"
    done
    read -r n s v p d <<<"${V[all]}"
    echo
    echo "value $v (proven $p, depth $d)"
    unset N S V
done
echo
echo "Geometric means over the positions (factor against none; > 1: fewer nodes, less time):"
echo
echo "| configuration | nodes vs none | time vs none |"
echo "|---|---:|---:|"
for c in "${configs[@]}"; do
    label=${c%%|*}
    awk -v l="$label" '$0 ~ "^" l " [0-9]" {
            k = NF; n0 = $(k - 3); n = $(k - 2); s0 = $(k - 1); s = $k
            if (n > 0 && s > 0 && s0 > 0) { ln += log(n0 / n); ls += log(s0 / s); m++ } }
        END { if (m) printf "| %s | %.2fx | %.2fx |\n", l, exp(ln / m), exp(ls / m) }' "$summary"
done
