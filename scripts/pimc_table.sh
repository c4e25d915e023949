#!/usr/bin/env bash
# pimc_table.sh [GGP]: issue 26's series. `pimc` against `mcts` and against `random` on
# GDL-II games (and against `deduce:choose=secret` on killer_small): a game of several
# players as `pimc,X,X...` (--duplicate: each deal from every seat), a game of one player as three series of the same seeds (pimc, mcts, random alone). Writes a table of
# mean goals with 95% intervals, timeouts and illegal moves to OUT (and prints each series).
# Environment: MATCHES (default 100), GAMES (default: the seven below, as FILE:PLAYCLOCK or
# FILE:PLAYCLOCK:MATCHES; the full killer game, 1-3 minutes a match, 30),
# STARTCLOCK (default 3), SEED (default 1), OUT (default docs/pimc_table.md).
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
GGP=$(ensure_ggp "${1:-build/ggp}") || exit 1
MATCHES=${MATCHES:-100}
STARTCLOCK=${STARTCLOCK:-3}
SEED=${SEED:-1}
OUT=${OUT:-docs/pimc_table.md}
C=../shared/gdl-corpus
GAMES=${GAMES:-"games/guess.kif:0.3 $C/MontyHall.gdl:0.3 $C/Mastermind448.gdl:0.3 $C/minesweeper.gdl:0.3 games/killer_small.kif:0.5 games/tarok.kif:0.5 games/killer.kif:0.5:30"}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
commit=$(git rev-parse --short HEAD) # once: the checkout may move while the series run
rows=""
# one series: prints the machine-readable lines of `ggp match`; SEATING is --duplicate for
# a game of several players (each deal played from every seat: the deal's luck cancels, the
# interval is that of the rotations' means), --swap alone
series() {
    local game=$1 clock=$2 n=$3 players=$4 seating=${5:---swap}
    "$GGP" match "$game" --players "$players" --startclock "$STARTCLOCK" --playclock "$clock" \
        --matches "$n" "$seating" --seed "$SEED" 2>/dev/null | grep '^player=' || true
}
field() { sed -nE "s/(^|.* )$1=([^ ]*).*/\2/p" <<<"$2"; }
# a table row from one player's line: name mean±ci timeouts illegal
row() {
    local game=$1 clock=$2 opp=$3 line=$4
    printf '| %s | %s | %s | %s | %s | %s ± %s | %s | %s |\n' "$game" "$clock" "$opp" \
        "$(field player "$line")" "$(field matches "$line")" "$(field mean_goal "$line")" \
        "$(field ci95 "$line")" "$(field timeouts "$line")" "$(field illegal "$line")"
}
# the table so far (rewritten after each game: a long series stopped keeps the rest)
write_out() {
    {
        echo "# PIMC against mcts and random (issue 26)"
        echo
        echo "Made by \`scripts/pimc_table.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit"
        echo "$commit, $(nproc) cores, load average at the start $load0."
        echo "$MATCHES matches per series unless the row says, start clock $STARTCLOCK s, seed $SEED, seats rotated. A game"
        echo "of one player: each kind alone on the same seeds (the master's \`random\` deals alike);"
        echo "of several: \`--duplicate\` (each deal played from every seat, the interval over the"
        echo "rotations' means, so the deal's luck cancels; matches rounded up to whole rotations)."
        echo "Mean goal ± the 95% interval of the mean."
        echo
        echo "| game | play clock s | series | player | matches | mean goal | timeouts | illegal |"
        echo "|---|---|---|---|---|---|---|---|"
        printf '%s' "$rows"
    } >"$OUT"
}
for spec in $GAMES; do
    IFS=: read -r game clock n <<<"$spec"
    n=${n:-$MATCHES}
    name=$(basename "$game" | sed 's/\.[a-z]*$//')
    [ -f "$game" ] || { echo "pimc_table: $game not found" >&2; continue; }
    roles=$("$GGP" check "$game" 2>/dev/null | awk '$1 == "roles" { for (i = 2; i <= NF; i++) if ($i != "random") n++; print n }')
    if [ "${roles:-0}" -le 1 ]; then
        for p in pimc mcts random; do
            line=$(series "$game" "$clock" "$n" "$p" | head -1)
            echo "$name alone: $line"
            rows+=$(row "$name" "$clock" "(alone)" "$line")$'\n'
        done
        write_out
        continue
    fi
    n=$(((n + roles - 1) / roles * roles)) # whole rotations
    opps="mcts random"
    # the killer game's strongest deducer: pimc should be at least as strong (issue 26)
    [ "$name" = killer_small ] && opps+=" deduce:choose=secret"
    for opp in $opps; do
        players=pimc$(printf ",$opp%.0s" $(seq 2 "$roles"))
        out=$(series "$game" "$clock" "$n" "$players" --duplicate)
        echo "$name $players: $out"
        while read -r line; do
            [ -n "$line" ] && rows+=$(row "$name" "$clock" "$players" "$line")$'\n'
        done <<<"$out"
    done
    write_out
done
echo "pimc_table: wrote $OUT" >&2
