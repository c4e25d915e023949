#!/usr/bin/env bash
# check_killer_percepts.sh GGP GAME [SEEDS]
#
# Plays random matches of the killer card game (games/killer.kif or
# games/killer_small.kif) with `GGP trace GAME --seed S --matches 1` for
# S = 1..SEEDS (default 20) and checks, from the canonical traces, that
#   - no player ever perceives a card it may not know: every card named in a
#     `sees P ...` percept must be one P was dealt, gave, received or looked
#     at, or one that was placed face up (percept `accused`, a card a player
#     names, is exempt: it is a claim, not a reveal); the killer card is
#     never named in any percept;
#   - each percept is consistent with the joint move of its step (who gave
#     what to whom, who placed what);
#   - every match ends (`end` line) with exactly one numeric goal per role.
# The percept terms are those documented in the header of games/killer.kif.
# Exits non-zero with a message on any violation; prints a summary line.

set -u

if [ $# -lt 2 ]; then
    echo "usage: $0 GGP GAME [SEEDS]" >&2
    exit 2
fi
GGP=$1
GAME=$2
SEEDS=${3:-20}

if [ ! -x "$GGP" ]; then
    echo "killer percepts: ggp binary not found or not executable: $GGP" >&2
    exit 2
fi
if [ ! -r "$GAME" ]; then
    echo "killer percepts: game not readable: $GAME" >&2
    exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for s in $(seq 1 "$SEEDS"); do
    if ! "$GGP" trace "$GAME" --seed "$s" --matches 1 >"$tmp/trace.$s" 2>"$tmp/err.$s"; then
        echo "killer percepts: FAIL: '$GGP trace $GAME --seed $s --matches 1' failed:" >&2
        head -5 "$tmp/err.$s" >&2
        exit 1
    fi
    cat "$tmp/trace.$s" >>"$tmp/all"
done

awk -v expected="$SEEDS" '
# split the items of a line (after the first FROM-1 words) into top-level terms
function split_terms(line, arr,    n, i, c, depth, cur, ch) {
    n = 0; depth = 0; cur = ""
    for (i = 1; i <= length(line); i++) {
        ch = substr(line, i, 1)
        if (ch == " " && depth == 0) {
            if (cur != "") { arr[++n] = cur; cur = "" }
            continue
        }
        if (ch == "(") depth++
        else if (ch == ")") depth--
        cur = cur ch
    }
    if (cur != "") arr[++n] = cur
    return n
}
# split a flat compound term "(f a b c)" into name and args; returns #args
function term_args(t, a,    inner, k) {
    if (substr(t, 1, 1) != "(") { a[0] = t; return 0 }
    inner = substr(t, 2, length(t) - 2)
    if (index(inner, "(") > 0) { a[0] = "NESTED"; return -1 }
    k = split(inner, a, " ")
    a[0] = a[1]
    for (i2 = 1; i2 < k; i2++) a[i2] = a[i2 + 1]
    delete a[k]
    return k - 1
}
function violation(msg) {
    printf("killer percepts: VIOLATION (match %d, seed %d, step %s): %s\n", matches, matches, step, msg)
    nviol++
}
# may role r know card c ("x y") at this point?
function may_know(r, c) {
    return ((r SUBSEP c) in known) || (c in public)
}
function check_card(r, c, what) {
    if (c == killer) violation(r " sees the killer card " c " in " what)
    else if (!may_know(r, c)) violation(r " sees card " c " it may not know, in " what)
}
function reset_match() {
    delete known; delete public; delete owner; delete slot
    killer = ""; asker = ""; ended = 0; ngoals = 0; step = "?"
    delete giver_card
}
BEGIN { matches = 0; npercepts = 0; nviol = 0; nended = 0; nsteps = 0 }
$1 == "game" {
    if (matches > 0 && !ended) violation("match has no end line")
    matches++; reset_match(); next
}
$1 == "roles" {
    nroles = NF - 1
    for (i = 2; i <= NF; i++) role[i - 1] = $i
    if (role[1] != "random") violation("first role is not random")
    next
}
$1 == "step" { step = $2; nsteps++; next }
$1 == "does" {
    n = split_terms(substr($0, 6), mv)
    if (n != nroles) { violation("does line has " n " moves for " nroles " roles"); next }
    delete giver_card
    for (i = 1; i <= n; i++) {
        r = role[i]
        k = term_args(mv[i], a)
        if (a[0] == "deal" && r == "random") {
            c = a[1] " " a[2]
            if (c in owner || c == killer) violation("card " c " dealt twice")
            if (a[3] == "table") killer = c
            else { owner[c] = a[3]; known[a[3], c] = 1 }
        }
        else if (a[0] == "ask") asker = r
        else if (a[0] == "give") {
            c = a[1] " " a[2]
            if (owner[c] != r) violation(r " gives " c " which it does not hold (owner " owner[c] ")")
            owner[c] = asker; known[asker, c] = 1
            giver_card[r] = c
        }
        else if (a[0] == "place") {
            c = a[1] " " a[2]
            if (owner[c] != r) violation(r " places " c " which it does not hold")
            owner[c] = "table"; public[c] = 1
        }
        else if (a[0] == "placetriple") {
            c = a[1] " " a[2]
            for (j = 1; j <= 5; j += 2)
                if (owner[a[j] " " a[j + 1]] != r) violation(r " places " a[j] " " a[j + 1] " which it does not hold")
            owner[c] = "table"; public[c] = 1
            owner[a[3] " " a[4]] = "table"; owner[a[5] " " a[6]] = "table"
            slot[c, 1] = a[3] " " a[4]; slot[c, 2] = a[5] " " a[6]
        }
        else if (a[0] == "look") {
            c = a[1] " " a[2]
            if (!((c SUBSEP a[3]) in slot)) violation(r " looks at unknown slot " c " " a[3])
            else known[r, slot[c, a[3]]] = 1
        }
    }
    next
}
$1 == "sees" {
    r = $2
    if (r == "random") { violation("random receives percepts"); next }
    n = split_terms(substr($0, 7 + length(r)), pc)
    for (i = 1; i <= n; i++) {
        npercepts++
        k = term_args(pc[i], a)
        nm = a[0]
        if (nm == "dealt" && k == 2) {
            c = a[1] " " a[2]
            if (owner[c] != r) violation(r " sees (dealt " c ") but it was dealt to " owner[c])
            check_card(r, c, pc[i])
        } else if (nm == "received" && k == 3) {
            c = a[2] " " a[3]
            if (r != asker || giver_card[a[1]] != c) violation(r " sees " pc[i] " but that is not this step\047s pass to it")
            check_card(r, c, pc[i])
        } else if (nm == "gave" && k == 3) {
            c = a[2] " " a[3]
            if (giver_card[r] != c || a[1] != asker) violation(r " sees " pc[i] " but it did not give that card")
            check_card(r, c, pc[i])
        } else if ((nm == "faceup" || nm == "tripleshown") && k == 3) {
            c = a[2] " " a[3]
            if (!(c in public)) violation(r " sees " pc[i] " but that card was not placed face up")
            check_card(r, c, pc[i])
        } else if (nm == "putdown" && k == 6) {
            for (j = 1; j <= 5; j += 2) check_card(r, a[j] " " a[j + 1], pc[i])
            if (slot[a[1] " " a[2], 1] != a[3] " " a[4] || slot[a[1] " " a[2], 2] != a[5] " " a[6])
                violation(r " sees " pc[i] " which does not match the placed triple")
        } else if (nm == "looked" && k == 4) {
            check_card(r, a[2] " " a[3], pc[i])
        } else if (nm == "saw" && k == 5) {
            check_card(r, a[1] " " a[2], pc[i])
            check_card(r, a[4] " " a[5], pc[i])
            if (slot[a[1] " " a[2], a[3]] != a[4] " " a[5]) violation(r " sees " pc[i] " which is not that slot\047s card")
        } else if ((nm == "asked" && k == 2) || (nm == "havenone" && k == 2) || (nm == "passed" && k == 3)) {
            # no card named: public
        } else if (nm == "accused" && k == 3) {
            # a card named by a player: a claim, not a reveal
        } else {
            violation(r " sees unknown percept " pc[i])
        }
    }
    next
}
$1 == "terminal" { last_terminal = $2; next }
$1 == "goal" {
    ngoals++
    if ($3 !~ /^[0-9]+$/) violation("role " $2 " has goal " $3)
    next
}
$1 == "end" {
    if (last_terminal != "yes") violation("match ends on a non-terminal step")
    if (ngoals != nroles) violation(ngoals " goal lines for " nroles " roles")
    ended = 1; nended++
    next
}
END {
    if (matches > 0 && !ended) violation("match has no end line")
    if (matches != expected) { printf("killer percepts: expected %d matches, found %d\n", expected, matches); nviol++ }
    printf("killer percepts: %d matches, %d steps, %d percepts checked, %d violations\n", matches, nsteps, npercepts, nviol)
    exit (nviol > 0 ? 1 : 0)
}
' "$tmp/all"
