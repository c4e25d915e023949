#!/bin/bash
# Malformed and hostile requests against `ggp serve` on loopback: garbage, a huge body, a
# wrong content type, a truncated S-expression, unknown commands and methods, broken HTTP,
# an unknown match id, a second START while a match runs; and deadlines: a player made to
# think 10 minutes is cut at its 1 s play clock (were it not, no answer would come within
# the requests' hang guard), and a large game (chess) is answered, in a match too. No
# verdict is a stopwatch (a loaded machine answers later, not wrongly): how late answers
# come under load is measured by scripts/clock_load.sh (docs/http_clocks.md). After each,
# the server must still answer. Each request is bounded by a hang guard; the servers are
# killed on exit.
# usage: http_bad.sh GGP SOURCE_DIR
set -euo pipefail
GGP=$1
ROOT=$2
TMP=$(mktemp -d)
. "$ROOT/tests/integration/http_lib.sh"
trap 'http_cleanup; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
command -v curl >/dev/null || { echo "curl is needed"; exit 77; }

start_server a -- --player random --seed 3

# expect_status NAME CODE BODY [curl options]: the reply has that HTTP status.
expect_status() {
    local name=$1 code=$2 body=$3 got
    shift 3
    got=$(post_status "$name" "$body" "$@")
    [ "${got%% *}" = "$code" ] || fail "expected HTTP $code for '${body:0:60}', got: ${got:0:200}"
    alive "$name" || fail "server $name died after '${body:0:60}'"
    echo "ok: HTTP $code for '${body:0:40}'"
}

# expect_reply NAME REPLY BODY: HTTP 200 with exactly that reply.
expect_reply() {
    local got
    got=$(post "$1" "$3")
    [ "$got" = "$2" ] || fail "expected '$2' for '${3:0:60}', got '$got'"
    echo "ok: '$2' for '${3:0:40}'"
}

# answered NAME BODY: the answer arrives (HTTP 200) within the hang guard; prints the reply
# (its time on stderr, for the log: not a verdict).
answered() {
    local got code secs reply
    got=$(post_status "$1" "$2")
    code=${got%% *}
    got=${got#* }
    secs=${got%% *}
    reply=${got#* }
    [ "$code" = 200 ] || fail "HTTP $code for '${2:0:60}'"
    echo "ok: answer '$reply' in $secs s to '${2:0:40}'" >&2
    echo "$reply"
}

TTT=$(rules_of "$ROOT/games/tictactoe.kif")

# garbage, truncated, unknown, empty
expect_status a 400 'garbage'
expect_status a 400 $'\x01\x02\xff\xfe binary'
expect_status a 400 '( START m1 xplayer (( role xplayer ) ( role oplayer )'
expect_status a 400 '(play m1 nil'
expect_status a 400 '(launch rockets)'
expect_status a 400 ''
expect_status a 400 "$(printf '(%.0s' $(seq 1 2000))"
# the content type is not checked: a well-formed message is answered whatever it says
expect_status a 200 '( INFO )' -H 'Content-Type: application/json'
expect_status a 200 '( INFO )' -H 'Content-Type: application/x-www-form-urlencoded'
# methods: GET with the message in the URL, OPTIONS empty, others refused
got=$(curl -s -m 10 "http://127.0.0.1:${PORT[a]}/%28%20INFO%20%29")
[ "$got" = "((name ggp-random) (status available))" ] || fail "GET: $got"
got=$(curl -s -m 10 -o /dev/null -w '%{http_code} %{size_download}' -X OPTIONS "http://127.0.0.1:${PORT[a]}/")
[ "$got" = "200 0" ] || fail "OPTIONS: $got"
got=$(curl -s -m 10 -o /dev/null -w '%{http_code}' -X PUT --data '(info)' "http://127.0.0.1:${PORT[a]}/")
[ "$got" = 405 ] || fail "PUT: $got"
got=$(curl -s -m 10 -D - -o /dev/null -X POST --data '(info)' "http://127.0.0.1:${PORT[a]}/" | tr -d '\r')
for h in 'HTTP/1.0 200' 'Content-Type: text/acl' 'Content-Length: 38' 'Access-Control-Allow-Origin: \*' \
    'Access-Control-Allow-Methods: POST, GET, OPTIONS' 'Access-Control-Allow-Headers: Content-Type' \
    'Access-Control-Allow-Age: 86400'; do
    grep -q "^$h" <<<"$got" || fail "reply header '$h' missing in: $got"
done
echo "ok: GET, OPTIONS, PUT, reply headers"

# a huge body: 413, whether announced by Content-Length or sent chunked
head -c 5000000 /dev/zero | tr '\0' 'a' >"$TMP/huge"
got=$(curl -s -m 30 -o /dev/null -w '%{http_code}' --data-binary @"$TMP/huge" "http://127.0.0.1:${PORT[a]}/" || true)
[ "$got" = 413 ] || fail "huge body: $got"
got=$(curl -s -m 30 -o /dev/null -w '%{http_code}' -H 'Transfer-Encoding: chunked' --data-binary @"$TMP/huge" \
    "http://127.0.0.1:${PORT[a]}/" || true)
[ "$got" = 413 ] || fail "huge chunked body: $got"
alive a || fail "server died after a huge body"
echo "ok: 413 for huge bodies"

# broken HTTP on raw connections: cut short, never finished, nonsense
raw() {
    exec 3<>"/dev/tcp/127.0.0.1/${PORT[a]}"
    printf '%s' "$1" >&3
    exec 3>&-
}
raw $'POST / HTTP/1.0\r\nContent-Length: 100\r\n\r\n( INFO'
raw $'POST / HTTP/1.0\r\nContent-Len'
raw $'NONSENSE\r\n\r\n'
raw ''
exec 4<>"/dev/tcp/127.0.0.1/${PORT[a]}" # an idle connection does not block others
alive a || fail "server blocked by an idle connection"
exec 4>&-
alive a || fail "server died after broken HTTP"
echo "ok: broken HTTP"

# matches: unknown ids, one match at a time
expect_reply a busy '( PLAY nosuch.1 NIL )'
expect_reply a busy '( STOP nosuch.1 NIL )'
expect_reply a busy '( ABORT nosuch.1 )'
expect_reply a ready "( START bad.1 xplayer ($TTT) 10 5)"
expect_reply a busy "( START bad.2 oplayer ($TTT) 10 5)"
expect_reply a '((name ggp-random) (status busy))' '( INFO )'
expect_reply a busy '( PLAY bad.2 NIL )'
expect_reply a busy '( START bad.3 xplayer (( role )) 10 5)'
expect_reply a aborted '( ABORT bad.1 )'
expect_reply a '((name ggp-random) (status available))' '( INFO )'
# a game that does not load is refused, and the server stays available
expect_reply a busy '( START bad.4 r (( role r ) ( <= ( legal r ?x ) ( true a ) )) 10 5)'
expect_reply a '((name ggp-random) (status available))' '( INFO )'

# deadline: the player thinks 10 minutes per move (twice the hang guard), the play clock
# is 1 s: an answer at all is the cut
start_server slow GGP_TEST_THINK_DELAY_MS=600000 -- --player random --seed 5
# its worker sleeps 10 minutes: killed at the exit, not waited for by the cleanup
trap 'kill -KILL "${PID[slow]}" 2>/dev/null; http_cleanup; rm -rf "$TMP"' EXIT
expect_reply slow ready "( START slow.1 xplayer ($TTT) 10 1)"
move=$(answered slow '( PLAY slow.1 NIL )')
grep -q '^( mark [123] [123] )$' <<<"$move" || fail "first move '$move' is not legal"
answered slow "( PLAY slow.1 ($move noop ) )" >/dev/null
answered slow '( STOP slow.1 (noop ( mark 2 2 ) ) )' >/dev/null
alive slow || fail "slow server died"

# a large game: chess on the interpreter
CHESS=${GGP_CORPUS:-$ROOT/../shared/gdl-corpus}/chess.kif
if [ -f "$CHESS" ]; then
    start_server chess -- --player random --seed 6
    CH=$(rules_of "$CHESS")
    reply=$(answered chess "( START chess.1 white ($CH) 10 10)")
    [ "$reply" = ready ] || fail "chess START: $reply"
    answered chess '( PLAY chess.1 NIL )' >/dev/null
    answered chess '( PLAY chess.1 (( move wp e 2 e 4 ) noop ) )' >/dev/null
    answered chess '( PLAY chess.1 (noop ( move bp e 7 e 5 ) ) )' >/dev/null
    answered chess '( ABORT chess.1 )' >/dev/null
    # 16 moves of a match against a local player, every one legal and none replaced: clocks
    # of the hang guard (the random player answers at once; the master waits no longer)
    timeout $((20 * HTTP_GUARD)) "$GGP" match "$CHESS" --seed 2 \
        --players "http://127.0.0.1:${PORT[chess]},random" --startclock "$HTTP_GUARD" \
        --playclock "$HTTP_GUARD" --max-steps 16 >"$TMP/chess.out" 2>"$TMP/chess.err" || true
    line=$(grep "^player=http" "$TMP/chess.out") || fail "chess match: $(tail -3 "$TMP/chess.err")"
    ms=$(sed -n 's/.* slowest_move_ms=\([0-9]*\).*/\1/p' <<<"$line")
    case "$line" in *" timeouts=0 illegal=0") ;; *) fail "chess match: $line" ;; esac
    echo "ok: chess over HTTP, slowest move $ms ms"
    alive chess || fail "chess server died"
fi

# every request was logged with match id, command and time
for s in a slow; do
    grep -q 'match=.* cmd=.* ms=[0-9]* status=' "$TMP/$s.log" || fail "no request log lines for $s"
done
grep -q 'cmd=bad ms=[0-9]* status=400' "$TMP/a.log" || fail "bad requests are not logged"
echo "PASS"
