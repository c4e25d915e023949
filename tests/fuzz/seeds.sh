#!/usr/bin/env bash
# seeds.sh TARGET GAMES_DIR OUT_DIR: writes the seed corpus of a libFuzzer target into
# OUT_DIR, made from the project's games (games/*.kif), a few malformed inputs, and the
# inputs that once made the target fail (tests/fuzz/regressions/TARGET/).
# TARGET: parse | pipeline | ground (game text), protocol (request bodies), http (raw requests).
set -u
if [ $# -ne 3 ]; then
    echo "usage: $0 TARGET GAMES_DIR OUT_DIR" >&2
    exit 2
fi
target=$1 games=$2 out=$3
dir=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
cp "$dir/regressions/$target"/* "$out/" 2>/dev/null

# A request body for each message kind, about game file $1 (GDL-II forms when it sees).
messages() {
    local rules stem=$(basename "$1" .kif)
    rules=$(grep -v '^[[:space:]]*;' "$1" | tr '\n' ' ')
    local role
    role=$(grep -o '(role [^)]*)' "$1" | tail -1 | sed 's/(role \(.*\))/\1/')
    printf '( START m.%s %s (%s) 10 2)' "$stem" "$role" "$rules" >"$out/start-$stem"
    printf '( PREVIEW (%s) 5)' "$rules" >"$out/preview-$stem"
}

case $target in
parse | pipeline | ground)
    cp "$games"/*.kif "$out/"
    printf '(role x' >"$out/unclosed"
    printf ')' >"$out/stray"
    printf '(role ?)' >"$out/lone"
    printf '(<= (p ?x) (q ?y) (not (or (r ?x) (s ?z))))' >"$out/unsafe"
    printf '(role r)\n(<= (p ?x) (q ?x) (not (s ?x)))\n(<= (s ?x) (q ?x) (not (p ?x)))' >"$out/strat"
    ;;
protocol)
    for g in tictactoe nim guess killer_small; do messages "$games/$g.kif"; done
    # A whole match as the service sees it: messages separated by blank lines.
    {
        cat "$out/start-tictactoe"
        printf '\n\n( PLAY m.tictactoe NIL )\n\n( PLAY m.tictactoe (( mark 1 1 ) noop ) )'
        printf '\n\n( PLAY m.tictactoe (noop ( mark 2 2 )) )\n\n( STOP m.tictactoe (( mark 1 2 ) noop ) )'
    } >"$out/match-tictactoe"
    {
        cat "$out/start-guess"
        printf '\n\n( PLAY m.guess 0 NIL NIL )\n\n( PLAY m.guess 1 noop NIL )\n\n( PLAY m.guess 2 (guess 2) (higher) )'
        printf '\n\n( ABORT m.guess )\n\n( INFO )'
    } >"$out/match-guess"
    printf '( INFO )' >"$out/info"
    printf '( ABORT m.x )' >"$out/abort"
    printf '( PLAY m.x 3 NIL ((sees a) (b c)) )' >"$out/play-gdl2"
    printf '( STOP m.x 4 (move 1) NIL )' >"$out/stop-gdl2"
    printf '(PLAY x (a b' >"$out/unclosed"
    ;;
http)
    body='( INFO )'
    printf 'POST / HTTP/1.0\r\nAccept: text/delim\r\nHost: localhost\r\nSender: GAMESERVER\r\nReceiver: \r\nContent-Type: text/acl\r\nContent-Length: %d\r\n\r\n%s' \
        ${#body} "$body" >"$out/post-info"
    printf 'GET /(%%20INFO%%20) HTTP/1.1\r\nHost: x\r\n\r\n' >"$out/get-info"
    printf 'GET /?(INFO) HTTP/1.1\r\nHost: x\r\n\r\n' >"$out/get-query"
    printf 'OPTIONS / HTTP/1.1\r\nHost: x\r\n\r\n' >"$out/options"
    printf 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n( IN\r\n4\r\nFO )\r\n0\r\n\r\n' >"$out/chunked"
    printf 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n(' >"$out/huge"
    printf 'DELETE / HTTP/1.1\r\nHost: x\r\n\r\n' >"$out/delete"
    body=$(cat "$games/tictactoe.kif" | grep -v '^[[:space:]]*;' | tr '\n' ' ')
    body="( START m.h xplayer ($body) 1 1)"
    printf 'POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: %d\r\n\r\n%s' \
        ${#body} "$body" >"$out/post-start"
    ;;
*)
    echo "$0: unknown target '$target'" >&2
    exit 2
    ;;
esac
