#!/usr/bin/env bash
# belief_compare.sh OLD_GGP NEW_GGP [CORPUS]: what `ggp belief` says with two builds (say,
# before and after a change to player/bnet or player/bsmt), on the small GDL-II games of
# the corpus (../shared/gdl-corpus by default), for a few roles and seeds.
#
# For each run: the steps each build printed, whether their worlds and entailed fluents
# agree on the steps both printed (the number of Z3 checks may differ: it depends on the
# models Z3 returns; "none": a build printed no step, see the note) and each build's wall
# time. A run stops after LIMIT seconds (default 30); the world count stops at CAP
# (default 100). A line with "DIFFER" is a disagreement to look at; the exit status is 1
# when there is one. (ConnectThreeDecompositionII differs between builds whose grounders
# read its stray fact `(true (turn ?c))` differently.)
set -u
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
    sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
fi
old=${1:?usage: belief_compare.sh OLD_GGP NEW_GGP [CORPUS]}
new=${2:?usage: belief_compare.sh OLD_GGP NEW_GGP [CORPUS]}
corpus=${3:-$(dirname "$0")/../../shared/gdl-corpus}
limit=${LIMIT:-30}
cap=${CAP:-100}
games="MontyHall:candidate,random MontyHall-20door:candidate HoldYourCourseII:player
numberguessing:guesser ConnectThreeDecompositionII:redgreen minesweeper:miner,sweeper
Mastermind448:player twogenerals:generala BlindBreakthrough:white SmallDominion2:duke"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run BIN GAME ROLE SEED OUT: prints the wall time; the output without timings in OUT
run() {
    local t0 t1
    t0=$(date +%s.%N)
    timeout "$limit" nice -n 10 "$1" belief "$corpus/$2.gdl" --role "$3" --seed "$4" \
        --cap "$cap" 2>"$5.err" | sed 's/ checks .*//' | grep -v '^moves \|^terminal goals\|^# ' >"$5"
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc
}

# first_steps N FILE: the lines of the first N steps (a step is flushed whole)
first_steps() {
    awk -v n="$1" '/^step /{k++} k<=n' "$2"
}

status=0
printf "%-28s %-10s %4s %6s %6s %-8s %8s %8s  %s\n" game role seed old new agree old_s new_s note
for gr in $games; do
    g=${gr%%:*}
    for r in $(echo "${gr#*:}" | tr , ' '); do
        for s in 1 2; do
            to=$(run "$old" "$g" "$r" "$s" "$tmp/old")
            tn=$(run "$new" "$g" "$r" "$s" "$tmp/new")
            no=$(grep -c '^step' "$tmp/old")
            nn=$(grep -c '^step' "$tmp/new")
            n=$((no < nn ? no : nn))
            agree=same
            if [ "$n" -eq 0 ]; then
                agree=none
            elif ! diff -q <(first_steps "$n" "$tmp/old") <(first_steps "$n" "$tmp/new") >/dev/null; then
                agree=DIFFER
                status=1
            fi
            note=""
            [ -s "$tmp/old.err" ] && note="old: $(head -c 50 "$tmp/old.err" | tr '\n' ' ') "
            [ -s "$tmp/new.err" ] && note="${note}new: $(head -c 50 "$tmp/new.err" | tr '\n' ' ')"
            printf "%-28s %-10s %4s %6s %6s %-8s %8.2f %8.2f  %s\n" "$g" "$r" "$s" "$no" "$nn" \
                "$agree" "$to" "$tn" "$note"
        done
    done
done
exit $status
