#!/usr/bin/env bash
# cli.sh GGP GAMES_DIR
#
# The `ggp` command line: --help on the program and on every subcommand; bad usage exits
# 2; a malformed or invalid game gives `file:line:col: message` and exit 1; an illegal
# move in --moves is an error naming the step and the role; `check` prints the facts the
# issue asks for. Prints one line per failed check and a summary; exits 1 on any failure.

set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 GGP GAMES_DIR" >&2
    exit 2
fi
GGP=$1 GAMES=$2
TTT=$GAMES/tictactoe.kif
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

ok() { passed=$((passed + 1)); }
bad() {
    failed=$((failed + 1))
    echo "cli: FAIL: $*"
}
# run EXPECTED_EXIT CMD...: runs CMD with stdout in $tmp/out, stderr in $tmp/err
run() {
    local want=$1
    shift
    "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -ne "$want" ]; then
        bad "'$*' exited $rc, expected $want: $(head -2 "$tmp/err")"
        return 1
    fi
    ok
    return 0
}
# expect FILE REGEX DESCRIPTION
expect() {
    if grep -qE -- "$2" "$tmp/$1"; then ok; else
        bad "$3: no line matching /$2/ in $1: $(head -3 "$tmp/$1")"
    fi
}

# ---- help ----
run 0 "$GGP" --help && expect out '^usage: ggp ' "ggp --help"
run 0 "$GGP" -h && expect out '^usage: ggp ' "ggp -h"
# every subcommand that `ggp --help` lists, and at least the four of the foundation
subs=$("$GGP" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
for sub in check trace bench perft; do
    echo "$subs" | grep -qx "$sub" && ok || bad "ggp --help does not list '$sub'"
done
for sub in $subs; do
    run 0 "$GGP" "$sub" --help && expect out "^usage: ggp $sub" "ggp $sub --help"
done
# a usage error stays on screen: the error first, then the usage lines only
for sub in $subs; do
    if run 2 "$GGP" "$sub" --no-such-option; then
        expect err "^ggp $sub: unexpected argument '--no-such-option'" "ggp $sub: the error first"
        [ "$(wc -l <"$tmp/err")" -le 12 ] && ok || bad "ggp $sub: $(wc -l <"$tmp/err") lines for a usage error"
    fi
done
run 2 "$GGP"
run 2 "$GGP" nosuchcommand && expect err "unknown command 'nosuchcommand'" "unknown command"
run 2 "$GGP" check
run 2 "$GGP" trace "$TTT"                       # neither --seed nor --moves
run 2 "$GGP" trace "$TTT" --seed 1 --moves x    # both
run 2 "$GGP" trace "$TTT" --seed minus1
run 2 "$GGP" perft "$TTT"                       # no depth
run 2 "$GGP" bench "$TTT" --seconds abc

# ---- check on a valid game ----
if run 0 "$GGP" check "$TTT"; then
    expect out "^$TTT: valid" "check tictactoe"
    expect out '^roles xplayer oplayer$' "check prints the roles in order"
    expect out '^rules [0-9]+' "check prints the number of rules"
    expect out '^fluents 10 ' "check prints the number of fluents"
    expect out '^actions 10 ' "check prints the number of actions"
    expect out '^acyclic yes$' "tictactoe is acyclic"
    expect out '^recursive none$' "tictactoe has no recursive predicate"
fi
if run 0 "$GGP" check "$GAMES/hex5.kif"; then
    expect out '^acyclic no$' "hex5 is recursive"
    expect out '^recursive .*[a-z]+/[0-9]' "hex5 names its recursive predicates"
fi

# ---- malformed and invalid games: file:line:col: message, exit 1 ----
printf '(role x)\n(init (cell 1)\n' >"$tmp/unclosed.kif"
run 1 "$GGP" check "$tmp/unclosed.kif" && expect err "^$tmp/unclosed.kif:2:[0-9]+: syntax error" "unbalanced parenthesis"
printf '(role x)\n\n  )\n' >"$tmp/stray.kif"
run 1 "$GGP" check "$tmp/stray.kif" && expect err "^$tmp/stray.kif:3:3: syntax error, unexpected '\)'" "stray ')'"
printf '(role x)\n(p ? a)\n' >"$tmp/lone.kif"
run 1 "$GGP" check "$tmp/lone.kif" && expect err "^$tmp/lone.kif:2:4: .*'\?'" "lone '?'"
printf '(role x)\n(p \0)\n' >"$tmp/nul.kif"
run 1 "$GGP" check "$tmp/nul.kif" && expect err "^$tmp/nul.kif:2:4: NUL byte in input" "NUL byte"
head -c 100000 /dev/zero | tr '\0' '(' >"$tmp/deep.kif"
run 1 "$GGP" check "$tmp/deep.kif" && expect err "^$tmp/deep.kif:1:[0-9]+: parentheses nested too deeply" "deep nesting"
# a term nested past 400 levels (TERM_MAX_DEPTH): within the 500 parentheses, refused where
# it passes the cap
{ printf '(role r)\n(init (c'; for i in $(seq 450); do printf ' (s'; done
  printf ' z'; for i in $(seq 452); do printf ')'; done; echo; } >"$tmp/nested.kif"
run 1 "$GGP" check "$tmp/nested.kif" && expect err "^$tmp/nested.kif:2:157: a term of more than 400 nesting levels" "a term nested past the cap"
# rules that nest a term past the cap through a chain of relations (3 of 150 levels): the
# evaluator gives up naming the relation (2,000 of 490 levels ended ggp match by SIGSEGV)
{ echo '(role r) (init (step 0)) (<= (next (step 1)) (true (step 0))) (<= terminal (true (step 1)))'
  echo '(<= (goal r 100) (true (step 1))) (<= (goal r 0) (true (step 0))) (q0 z) (<= (legal r (m ?x)) (q3 ?x))'
  for i in 0 1 2; do printf '(<= (q%d' $((i + 1)); for k in $(seq 150); do printf ' (s'; done
      printf ' ?x'; for k in $(seq 150); do printf ')'; done; printf ') (q%d ?x))\n' $i; done; } >"$tmp/nesting.kif"
GGP_CACHE=$tmp/cache run 1 "$GGP" check "$tmp/nesting.kif" && expect err "the relation q3/1 would hold a term nested past 400 levels" "check: a term nested past the cap"
GGP_CACHE=$tmp/cache run 1 "$GGP" match "$tmp/nesting.kif" --players random && expect err "error: step 0: the relation q3/1 would hold a term nested past 400 levels" "match: a term nested past the cap"
# a fluent nested 150 levels deeper a turn: the evaluator gives up at the third turn; the
# commands say so and exit 1 (they printed an empty trace, counts and values, and exit 0)
{ echo '(role r) (init (c z)) (init (step 0)) (<= (legal r (m ?x)) (true (c ?x)))'
  echo '(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n)) (<= terminal (true (step 9)))'
  echo '(<= (goal r 100) terminal) (<= (goal r 0) (not terminal))'
  for i in $(seq 0 8); do echo "(succ $i $((i + 1)))"; done
  printf '(<= (next (c'; for k in $(seq 150); do printf ' (s'; done
  printf ' ?x'; for k in $(seq 152); do printf ')'; done; echo ' (true (c ?x)))'; } >"$tmp/growing.kif"
for c in "trace --seed 1" "perft --depth 4" "solve --max-states 1000" "bench --seconds 0.1"; do
    GGP_CACHE=$tmp/cache run 1 "$GGP" ${c%% *} "$tmp/growing.kif" ${c#* } && expect err "ggp ${c%% *}: $tmp/growing.kif: the game cannot be reasoned about: the relation next/1 would hold a term nested past 400 levels" "${c%% *}: the evaluator gave up"
done
# a chain of 2,000 relations needs about 1.5 MiB of the evaluator's stack (3.1 MiB under
# ASan, within its 4 MiB budget; 3,000 passed it there): under a 512 KiB `ulimit -s` the
# commands run on a thread of the engines' stack (16 MiB; SIGSEGV on the main thread)
{ echo '(role r) (init (step 0)) (<= (next (step 1)) (true (step 0))) (<= terminal (true (step 1)))'
  echo '(<= (goal r 100) (true (step 1))) (<= (goal r 0) (true (step 0))) (<= (legal r go) p0) p2000'
  for i in $(seq 0 1999); do echo "(<= p$i p$((i + 1)))"; done; } >"$tmp/chain.kif"
GGP_CACHE=$tmp/cache run 0 bash -c 'ulimit -s 512 && exec "$@"' - "$GGP" check "$tmp/chain.kif" && expect out "valid" "check under ulimit -s 512"
GGP_CACHE=$tmp/cache run 0 bash -c 'ulimit -s 512 && exec "$@"' - "$GGP" match "$tmp/chain.kif" --players random && expect out "wins=1" "match under ulimit -s 512"
printf '(role r)\n(q a)\n(<= (p ?x)\n    (q ?y))\n' >"$tmp/unsafe.kif"
run 1 "$GGP" check "$tmp/unsafe.kif" && expect err "^$tmp/unsafe.kif:3:5: unsafe variable" "unsafe rule"
printf '(init (x))\n' >"$tmp/noroles.kif"
# a fragment without roles loads for inspection, as the reference loads it, with a warning;
# nothing can play it
run 0 "$GGP" check "$tmp/noroles.kif" && expect err "^$tmp/noroles.kif:1:1: .*no \`role\` facts: nothing can play it" "no roles: check warns"
run 1 "$GGP" trace "$tmp/noroles.kif" --seed 1 && expect err "^$tmp/noroles.kif:1:1: .*no \`role\` facts" "no roles: trace refuses"
# the other subcommands report the same way
run 1 "$GGP" trace "$tmp/stray.kif" --seed 1 && expect err "^$tmp/stray.kif:3:3: " "trace on a malformed game"
run 1 "$GGP" perft "$tmp/unsafe.kif" --depth 1 && expect err "^$tmp/unsafe.kif:3:5: " "perft on an invalid game"
run 1 "$GGP" bench "$tmp/stray.kif" --seconds 0.1 && expect err "^$tmp/stray.kif:3:3: " "bench on a malformed game"
run 1 "$GGP" check "$tmp/does-not-exist.kif" && expect err "^$tmp/does-not-exist.kif: cannot read: No such file" "missing file (named, without a location)"

# ---- trace --moves: replay, and illegal or malformed moves ----
if run 0 "$GGP" trace "$TTT" --seed 7; then
    cp "$tmp/out" "$tmp/seed7"
    grep '^does ' "$tmp/seed7" | cut -c6- >"$tmp/moves"
    run 0 "$GGP" trace "$TTT" --moves "$tmp/moves" && {
        cmp -s "$tmp/out" "$tmp/seed7" && ok || bad "--moves replay differs from the --seed trace"
    }
    run 0 "$GGP" trace "$TTT" --moves - <"$tmp/moves" && {
        cmp -s "$tmp/out" "$tmp/seed7" && ok || bad "--moves - (stdin) differs from the --seed trace"
    }
fi
printf '(mark 1 1) noop\nnoop (mark 1 1)\n' >"$tmp/illegal"
run 1 "$GGP" trace "$TTT" --moves "$tmp/illegal" &&
    expect err "step 1.*(mark 1 1).*oplayer|step 1.*oplayer.*(mark 1 1)" "illegal move names step and role"
printf 'noop noop\n' >"$tmp/illegal0"
run 1 "$GGP" trace "$TTT" --moves "$tmp/illegal0" && expect err "step 0.*xplayer" "illegal first move"
printf '(mark 1 1) noop\n' >"$tmp/short"
run 1 "$GGP" trace "$TTT" --moves "$tmp/short" && expect err "step 1" "moves ending early name the step"
printf '(mark 1 1)\n' >"$tmp/arity"
run 1 "$GGP" trace "$TTT" --moves "$tmp/arity" && expect err "step 0.*1 moves? .*2 roles" "wrong number of moves"
printf '(mark 1 1) (noop\n' >"$tmp/malformed"
run 1 "$GGP" trace "$TTT" --moves "$tmp/malformed" && expect err "step 0.*malformed" "malformed joint move"
run 1 "$GGP" trace "$TTT" --moves "$tmp/no-such-moves"

# ---- trace output shape and --matches ----
if run 0 "$GGP" trace "$TTT" --seed 3 --matches 3; then
    [ "$(grep -c '^game tictactoe$' "$tmp/out")" = 3 ] && ok || bad "--matches 3 does not print 3 games"
    [ "$(grep -c '^end$' "$tmp/out")" = 3 ] && ok || bad "--matches 3 does not print 3 ends"
fi

# ---- trace: goal defects (several values: sorted as numbers; none) ----
cat >"$tmp/goals.kif" <<'KIF'
(role a) (role b) (role c)
(init x)
(<= (legal ?r noop) (role ?r) (true x))
(<= (next y) (true x))
(<= terminal (true y))
(goal a 100) (goal a 50) (goal a 7) (goal a 0)
(goal b 10)
KIF
if run 0 "$GGP" trace "$tmp/goals.kif" --seed 1; then
    expect out '^goal a ambiguous 0 7 50 100$' "several goal values print as ambiguous, sorted as numbers"
    expect out '^goal b 10$' "a single goal value"
    expect out '^goal c none$' "no goal value"
fi

# ---- perft and bench ----
run 0 "$GGP" perft "$TTT" --depth 2 && {
    [ "$(cat "$tmp/out")" = "$(printf 'depth=1 count=9\ndepth=2 count=72')" ] && ok ||
        bad "perft --depth 2 prints $(tr '\n' ' ' <"$tmp/out")"
}
run 0 "$GGP" bench "$TTT" --seconds 0.2 &&
    expect out '^playouts_per_sec=[0-9.]+ states_per_sec=[0-9.]+ avg_length=[0-9.]+$' "bench last line"
[ "$(tail -1 "$tmp/out" | cut -c1-17)" = "playouts_per_sec=" ] && ok || bad "bench: machine-readable line is not last"

# ---- regress: backward search (begin; owned by the backward-search work) ----
# Unsupported games get a one-line reason and exit 3, never a formula; a recursive game
# is announced and its formulas say complete=no where the unfolding bound cut.
if "$GGP" --help 2>&1 | grep -q regress; then
    run 2 "$GGP" regress "$TTT" && expect err "--role is required" "regress without --role"
    run 2 "$GGP" regress "$TTT" --role nobody && expect err "role" "regress with an unknown role"
    run 3 "$GGP" regress "$GAMES/simultaneous.kif" --role 0 --budget 1 &&
        expect err "unsupported by backward search: .*simultaneous" "regress: simultaneous moves"
    [ -s "$tmp/out" ] && bad "regress printed a formula for a simultaneous game" || ok
    run 3 "$GGP" regress "$GAMES/three_player.kif" --role 0 --budget 1 &&
        expect err "unsupported by backward search: .*two roles.*3" "regress: three roles"
    run 3 "$GGP" regress "$GAMES/guess.kif" --role 0 --budget 1 &&
        expect err "unsupported by backward search: GDL-II" "regress: GDL-II game"
    run 3 "$GGP" regress "$GAMES/lightsout.kif" --role 0 --budget 1 &&
        expect err "unsupported by backward search: .*two roles.*1" "regress: one role"
    # No clock (--budget 0): the step limit and a shallow unfolding bound end it, so that a
    # loaded machine cannot cut a step (at depth 4 α_1 takes a minute).
    run 0 "$GGP" regress "$GAMES/hex5.kif" --role 0 --budget 0 --no-mutex --steps 1 --depth 3 &&
        expect out "^# recursive rules" "regress: recursive game announced" &&
        expect out "^side=alpha i=0 .*complete=no$" "regress: cut formula says complete=no"
    run 0 "$GGP" regress "$TTT" --role xplayer --budget 0 --steps 3 &&
        expect out "^side=beta i=3 seconds=[0-9.]+ disjuncts=[0-9]+ literals=[0-9]+ complete=(yes|no)$" \
            "regress: one line per step"
    # a budget far too short for the whole sequence (load only makes it shorter)
    run 0 "$GGP" regress "$GAMES/connect4.kif" --role 0 --budget 0.001 &&
        expect out "^# out of budget: side=(alpha|beta) i=[0-9]+ was not finished and is dropped$" \
            "regress: the dropped step is named"
    run 0 "$GGP" solve "$TTT" && expect out "^role=xplayer value=50 " "solve: tic-tac-toe is a draw"
    # blunders: o answers a corner at an edge (lost in 6), then x, o and x each miss a win
    # in one; the sets (--sets) prove every one
    printf '%s\n' '(mark 1 1) noop' 'noop (mark 2 1)' '(mark 1 2) noop' 'noop (mark 2 2)' \
        '(mark 3 3) noop' 'noop (mark 3 1)' '(mark 2 3) noop' 'noop (mark 1 3)' >"$tmp/moves"
    "$GGP" trace "$TTT" --moves "$tmp/moves" >"$tmp/trace" 2>/dev/null
    run 0 "$GGP" blunders "$TTT" "$tmp/trace" --sets 30 &&
        expect out "^blunder match=0 step=1 role=1 player=1 kind=into_loss dist=6 final=100 sets=known" \
            "blunders: the edge answer to a corner" &&
        expect out "^blunder match=0 step=4 role=0 player=0 kind=missed_win dist=1 final=0 decisive sets=known" \
            "blunders: a win in one missed" &&
        expect out "^blunders .* missed_win=3 into_loss=1 decisive=2 sets_known=4 " "blunders: the summary"
    run 0 "$GGP" regress "$TTT" --role xplayer --budget 0 --steps 2 --hits 3 &&
        expect out "^hits side=beta i=2 states=[1-9][0-9]* hits=[0-9]+ share=" "regress --hits"
    # a limit far below one evaluation: each formula takes the first state only
    run 0 "$GGP" regress "$TTT" --role xplayer --budget 0 --steps 2 --hits 3 --hits-seconds 1e-12 &&
        [ "$(grep -c '^hits .* states=1 ' "$tmp/out")" -eq 6 ] && ok ||
        bad "regress --hits-seconds: not one state per formula: $(grep '^hits' "$tmp/out" | head -2)"
    run 2 "$GGP" regress "$TTT" --role xplayer --hits 3 --hits-seconds x
    # --bdd: decision diagrams, any deterministic game; tic-tac-toe solved (the bounds of
    # the initial state meet at the draw, and of every other state at its exact value),
    # every step checked against the solver
    run 0 "$GGP" regress "$TTT" --role xplayer --bdd --values --budget 0 --check &&
        expect out "^side=alpha i=3 seconds=[0-9.]+ cpu=[0-9.]+ nodes=[0-9]+ parts=1 fixpoint=no complete=yes$" \
            "regress --bdd: one line per step" &&
        expect out "^side=beta i=[0-9]+ .*fixpoint=yes complete=yes$" "regress --bdd: fixpoint" &&
        expect out "^bounds state=initial lower=50 upper=50$" "regress --bdd: tic-tac-toe solved" &&
        expect out "^check side=upper v=50 i=5 states=5478 " "regress --bdd --check" &&
        expect out "^check side=upper v=50 i=5 states=5478 .* decided=5478$" \
            "regress --bdd --check: the solver decides every state" &&
        expect out "^check bounds states=4520 proven=4520 exact=4520 wrong=0$" \
            "regress --bdd --values --check: every non-terminal state's value proven"
    grep -E '^check .*(false_pos=[1-9]|late=[1-9]|misses=[1-9])' "$tmp/out" &&
        bad "regress --bdd --check: a wrong set" || ok
    # --trace: progress lines of a forall step (the join, each answer's part) before its line
    run 0 "$GGP" regress "$TTT" --role xplayer --bdd --budget 0 --steps 2 --trace &&
        expect out "^# trace join parts=[0-9]+ nodes=[0-9]+ all=yes live=[0-9]+$" \
            "regress --bdd --trace: the join" &&
        expect out "^# trace forall move=[0-9]+ pass=1 answer=[0-9]+ part=[0-9]+ nodes=[0-9]+ " \
            "regress --bdd --trace: a forall step's progress" &&
        expect out "^# trace build phase=joints ok=yes seconds=[0-9.]+ cpu=[0-9.]+ live=[0-9]+ joints=19 " \
            "regress --bdd --trace: the build's phases" &&
        expect out "^# trace successors joints_done=19 of=19 parts=[0-9]+ live=[0-9]+$" \
            "regress --bdd --trace: the successors made as the steps read them"
    # --forall products: every forall step by products of unions, terminal as exclusions;
    # tic-tac-toe still solved, every step and every state's value right
    run 0 "$GGP" regress "$TTT" --role xplayer --bdd --values --budget 0 --check --forall products &&
        expect out "^check bounds states=4520 proven=4520 exact=4520 wrong=0$" \
            "regress --bdd --forall products: tic-tac-toe solved"
    grep -E '^check .*(false_pos=[1-9]|late=[1-9]|misses=[1-9])' "$tmp/out" &&
        bad "regress --bdd --forall products: a wrong set" || ok
    run 2 "$GGP" regress "$TTT" --role xplayer --bdd --forall x
    run 0 "$GGP" regress "$GAMES/simultaneous.kif" --role 0 --bdd --budget 0 --verify 5 &&
        expect out "^verify side=beta i=2 states=[1-9][0-9]* .*false_pos=0 " \
            "regress --bdd: simultaneous moves, verified"
    run 3 "$GGP" regress "$GAMES/lightsout.kif" --role 0 --bdd --budget 0 --exact &&
        expect err "unsupported by backward search: .*two roles" "regress --bdd --exact: one role"
    run 3 "$GGP" regress "$GAMES/guess.kif" --role 0 --bdd --budget 1 &&
        expect err "unsupported by symbolic backward search: GDL-II" "regress --bdd: GDL-II game"
    run 2 "$GGP" regress "$TTT" --role xplayer --bdd --image x
fi
# ---- regress: end ----

# ---- belief: what a GDL-II role can prove (guess.kif: secret 3, guesses 2 then 3) ----
printf '(choose 3) noop\nnoop (guess 2)\nnoop (guess 3)\n' >"$tmp/guess"
if run 0 "$GGP" belief "$GAMES/guess.kif" --role player --moves "$tmp/guess"; then
    expect out "^step 1 worlds 4 entailed 1 " "belief: nothing known after the secret is picked"
    expect out "^step 2 worlds 2 " "belief: 'higher' than 2 leaves 3 and 4"
    expect out "^entailed \(secret 3\) \(stage 3\) found$" "belief: the secret once guessed"
    expect out "^moves noop \(guess 3\)$" "belief: the moves played are shown"
    expect out "^terminal goals " "belief: how the match ended"
fi
run 0 "$GGP" belief "$TTT" --role xplayer --seed 1 --quiet &&
    expect out "^# the game has no sees rules: xplayer perceives nothing" "belief: no sees rules said"
run 2 "$GGP" belief "$GAMES/guess.kif" --moves "$tmp/guess"      # no --role
run 2 "$GGP" belief "$GAMES/guess.kif" --role nobody --seed 1 && expect err "not a role" "belief: bad role"
printf '(choose 3) noop\nnoop (guess 9)\n' >"$tmp/guessbad"
run 1 "$GGP" belief "$GAMES/guess.kif" --role player --moves "$tmp/guessbad" &&
    expect err "guessbad:2: not a legal joint move" "belief: an illegal move names its line"

# ---- alphabeta: one search of a position; the ab player in a match ----
run 0 "$GGP" alphabeta "$TTT" &&
    expect out "^depth=[0-9]+ value=50 proven=yes move=\(mark [1-3] [1-3]\) nodes=[1-9]" \
        "alphabeta: tic-tac-toe is a draw, proven"
run 0 "$GGP" alphabeta "$GAMES/nim.kif" --role player2 --options tt=off:history=off:pvs=off:id=off &&
    expect out "^depth=[0-9]+ value=0 proven=yes " "alphabeta: nim is lost for the second player"
run 0 "$GGP" alphabeta "$GAMES/connect4.kif" --plies 6 --seed 2 --options depth=3:eval=goal &&
    expect out "^depth=3 value=[0-9]+ proven=no " "alphabeta: a depth bound is not a proof" &&
    expect out " tt_cuts=[0-9]+ loads=[1-9][0-9]* " "alphabeta: the table's cuts and the moves read"
run 2 "$GGP" alphabeta "$TTT" --options tt=maybe && expect err "bad option 'tt=maybe'" "alphabeta: bad option"
run 2 "$GGP" alphabeta "$TTT" --role nobody && expect err "no role 'nobody'" "alphabeta: bad role"
run 1 "$GGP" alphabeta "$TTT" --plies 20 && expect err "ends before ply 20" "alphabeta: past the end"
# clocks of a minute, bounds only: tic-tac-toe is solved in milliseconds, answered once
# proven; a loaded machine must not cut the search short of the proof (at 5 s a thread
# starved beside a busy loop could be)
if run 0 "$GGP" match "$TTT" --players ab,ab:tt=off:pvs=off --startclock 60 --playclock 60 --seed 1; then
    expect out "^player=ab matches=1 mean_goal=50.00 .* start_timeouts=0 timeouts=0 illegal=0" "match: ab draws tic-tac-toe"
fi
# a START answered past the start clock is counted, as a late PLAY is (a clock of 0: every
# START is late; the minute's clock above: none)
if run 0 "$GGP" match "$TTT" --players random,random --startclock 0 --playclock 60 --seed 1; then
    expect out "^player=random matches=1 .* start_timeouts=1 timeouts=0 illegal=0" "match: a late START is counted"
    expect err "answered START after" "match: a late START is said"
fi
run 2 "$GGP" match "$TTT" --players ab:depth=x,random && expect err "depth=x" "match: a bad ab option"
# the search counters per player as named on its player= line: one spec given twice is two
# players, two lines (they were summed into one per kind)
if run 0 "$GGP" match "$TTT" --players ab,ab --startclock 60 --playclock 60 --seed 1; then
    expect out "^mcts player=ab matches=1 .* ab_searches=[1-9]" "match: the first ab's counters"
    expect out "^mcts player=ab#2 matches=1 .* ab_searches=[1-9]" "match: the second ab's counters"
fi
# the ab kind has no proof hook: proofdepth would do nothing there (mcts+lbs takes abproof=N)
run 2 "$GGP" match "$TTT" --players ab:proofdepth=2,random &&
    expect err "proofdepth: this alpha-beta has no proof hook .*abproof=N" "match: ab refuses proofdepth"
run 2 "$GGP" alphabeta "$TTT" --options proofdepth=2 &&
    expect err "no proof hook" "alphabeta: refuses proofdepth"
# (refused before it listens; were it taken, the server would run: the timeout, a hang
# guard, ends it)
run 2 timeout 300 "$GGP" serve --player ab:proofdepth=2 --port 0 &&
    expect err "^ggp serve: player 'ab:proofdepth=2': .*no proof hook" "serve: ab refuses proofdepth"

# ---- match --duplicate: each deal played from every seat; the next block a new deal ----
if run 0 "$GGP" match "$GAMES/tarok.kif" --players random,random,random --startclock 1 \
    --playclock 1 --matches 6 --duplicate --seed 5 --trace; then
    # the state after the deal (step 13) of each match
    awk '/^game /{m++} /^step 13$/{getline; print m, $0}' "$tmp/out" >"$tmp/deals"
    deal() { awk -v m="$1" '$1 == m { $1 = ""; print }' "$tmp/deals"; }
    [ -n "$(deal 1)" ] && [ "$(deal 1)" = "$(deal 2)" ] && [ "$(deal 1)" = "$(deal 3)" ] &&
        [ "$(deal 4)" = "$(deal 6)" ] && ok || bad "match --duplicate: a block's deals differ"
    [ "$(deal 1)" != "$(deal 4)" ] && ok || bad "match --duplicate: two blocks deal alike"
fi
run 2 "$GGP" match "$GAMES/tarok.kif" --players random,random,random --matches 4 --duplicate &&
    expect err "multiple of 3" "match --duplicate: matches not a multiple of the seats"

# ---- ground: the literal limit from the environment, and what fills the network ----
# (a fresh cache: a failure under a small limit is remembered)
if GGP_CACHE=$tmp/cache-lits GGP_GROUND_LITS=10 run 1 "$GGP" ground "$GAMES/tictactoe.kif"; then
    expect out "too many ground rules" "ground: GGP_GROUND_LITS=10 stops tic-tac-toe"
fi
if run 0 "$GGP" ground "$GAMES/tictactoe.kif" --stats; then
    expect err "^ground: +[0-9]+ literals +[0-9]+ rules of next$" \
        "ground --stats: the literals of each relation once optimised"
fi

# ---- ground --stats: splitting with projected binders and unfolded filters ----
# (guards' check rules: a rook move's OR over its king's squares depends on the squares, not
# the piece; different_cells is "(distinct ?x1 ?x2) or (distinct ?y1 ?y2)"; the networks
# against the interpreter: engine_diff_games_*)
if run 0 "$GGP" ground "$GAMES/guards.kif" --stats; then
    expect err "^ground: split [0-9]+ rules, [0-9]+ auxiliary rules, [1-9][0-9]* binders projected, [1-9][0-9]* rules unfolded$" \
        "ground --stats: guards' binders projected and filters unfolded"
fi

# ---- ground --stats: the cut hybrid grounding makes when a relation grows past the limit ----
# (pathlist's walk test carries a list of visited cells: with 1,000 atoms allowed the list
# type blows up; the walks from the start cells are what the rest of the rules read)
GGP_GROUND_ATOMS=1000 GGP_GROUND_SECONDS=0 "$GGP" ground "$GAMES/pathlist.kif" --stats \
    >"$tmp/out" 2>"$tmp/err"
expect err "hybrid: 2 relations left lifted from outside/2: outside/2 walk/3; queried: walk/3" \
    "ground --stats: the hybrid cut of pathlist"
# the network with its query nodes against the interpreter; symbolic search refuses it
# (a cache of its own: a failure under a small atom limit would be remembered)
if GGP_CACHE=$tmp/cache GGP_GROUND_ATOMS=1000 GGP_GROUND_SECONDS=0 run 0 "$GGP" ground \
    "$GAMES/pathlist.kif" --check 20 --engine ground; then
    expect out "check: 20 matches, [0-9]+ steps agree" "ground --check: pathlist with query nodes"
fi
if GGP_CACHE=$tmp/cache GGP_GROUND_ATOMS=1000 GGP_GROUND_SECONDS=0 run 0 "$GGP" ground \
    "$GAMES/pathlist.kif" --check 20 --engine compiled; then
    expect out "check: 20 matches, [0-9]+ steps agree \(compiled engine\)" \
        "ground --check: pathlist's query nodes in compiled code"
fi
# a cut forced around a static relation lifts its readers: simultaneous's ahead/1, which only
# goals read (asked when goals are, not on every state), on both engines
for kind in ground compiled; do
    if GGP_CACHE=$tmp/cache GGP_GROUND_LIFT=greater run 0 "$GGP" ground "$GAMES/simultaneous.kif" \
        --check 20 --engine $kind --stats; then
        expect err "hybrid: 2 relations left lifted from greater/2: greater/2 ahead/1; queried: ahead/1" \
            "GGP_GROUND_LIFT=greater: the cut of simultaneous"
        expect out "check: 20 matches, [0-9]+ steps agree \\($kind engine\\)" \
            "ground --check: a query only goals read ($kind)"
    fi
done
if GGP_CACHE=$tmp/cache GGP_GROUND_ATOMS=1000 GGP_GROUND_SECONDS=0 run 3 "$GGP" regress \
    "$GAMES/pathlist.kif" --role white --bdd; then
    expect err "unsupported by symbolic backward search: the network leaves relations to the reasoner" \
        "regress --bdd: refuses a network with query nodes"
fi

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
