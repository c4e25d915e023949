#!/bin/bash
# The README's commands run as written (a doc test): every `./build/ggp ...` of its sh
# blocks (each part of an `&&` chain) is run from a copy of the project's layout with the
# built binary; it passes when it exits 0, or is still running when stopped after
# STOP_AFTER seconds (a match series or a server: what a wrong argument or a missing file
# would do, it does at once). Scripts named there must exist (and be executable when run
# without `bash`). The block with `curl` is the protocol exchange: it runs as a script and
# its replies must be the `# ` lines below each request. `--port 9147` becomes a free port.
# Every path the README names in backticks must exist.
# usage: readme.sh GGP SOURCE_DIR
set -uo pipefail
GGP=$(realpath "$1")
ROOT=$(realpath "$2")
STOP_AFTER=${STOP_AFTER:-3}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# sourced before fail() below: its own fail() exits at the first failure, without the count
. "$ROOT/tests/integration/http_lib.sh" # random_port
failed=0
passed=0
fail() { echo "readme: FAIL: $*"; failed=$((failed + 1)); }
ok() { passed=$((passed + 1)); }

mkdir -p "$TMP/run/build"
ln -s "$GGP" "$TMP/run/build/ggp"
for d in games scripts docs; do ln -s "$ROOT/$d" "$TMP/run/$d"; done
# a port nobody listens on: the exchange must talk to its own server, never to another's
for _ in $(seq 1 20); do
    PORT=$(random_port)
    (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null || break
done

# one file per ```sh block
awk -v dir="$TMP" '/^```sh/ { n++; f = dir "/block." n; next } /^```/ { f = ""; next }
    f { print > f }' "$ROOT/README.md"
[ -n "$(ls "$TMP"/block.* 2>/dev/null)" ] || { echo "readme: no sh blocks in README.md"; exit 1; }

run_command() {
    local cmd=${1//9147/$PORT} rc
    (cd "$TMP/run" && timeout -k 2 "$STOP_AFTER" bash -c "$cmd" >"$TMP/out" 2>"$TMP/err")
    rc=$?
    case $rc in
    0 | 124 | 137) ok ;;
    *) fail "'$1' exited $rc: $(head -c 300 "$TMP/err")" ;;
    esac
}

check_script() {
    local cmd=$1 path
    path=${cmd#bash }
    path=${path%% *}
    if [ ! -f "$ROOT/$path" ]; then
        fail "'$cmd': no file $path"
    elif [ "${cmd#bash }" = "$cmd" ] && [ ! -x "$ROOT/$path" ]; then
        fail "'$cmd': $path is not executable"
    else
        ok
    fi
}

run_exchange() {
    local block=$1 want got
    sed "s/9147/$PORT/g" "$block" >"$TMP/exchange.sh"
    (cd "$TMP/run" && timeout -k 2 60 bash "$TMP/exchange.sh" >"$TMP/got" 2>"$TMP/err")
    want=$(sed -n 's/^# //p' "$block")
    got=$(cat "$TMP/got")
    if [ "$want" = "$got" ]; then ok; else
        fail "the curl exchange replied: $(tr '\n' '|' <<<"$got") instead of: $(tr '\n' '|' <<<"$want") $(tail -3 "$TMP/err")"
    fi
}

# Every file and folder the README names in backticks (`docs/engine.md`, `mcts/uct.[ch]`) must
# exist: a reader follows them.
while IFS= read -r path; do
    case $path in
    *.\[ch\]) [ -f "$ROOT/${path%.\[ch\]}.c" ] && [ -f "$ROOT/${path%.\[ch\]}.h" ] ;;
    *) [ -e "$ROOT/$path" ] ;;
    esac && ok || fail "the README names $path: no such file"
done < <(grep -o '`[^`]*`' "$ROOT/README.md" | tr -d '`' |
    grep -E '^(base|gdl|logic|engine|truth|regress|mcts|player|server|match|cli|lab|games|tests|scripts|docs|\.ci)/[A-Za-z0-9_./-]*(\.\[ch\])?$' |
    sort -u)

for block in "$TMP"/block.*; do
    if grep -q curl "$block"; then
        run_exchange "$block"
        continue
    fi
    while IFS= read -r line; do
        line=$(sed -E 's/[[:space:]]+#[[:space:]].*$//' <<<"$line")
        [ -z "$line" ] && continue
        while [ -n "$line" ]; do
            part=${line%%&&*}
            [ "$part" = "$line" ] && line="" || line=${line#*&&}
            part=$(sed -E 's/^[[:space:]]+|[[:space:]]+$//g' <<<"$part")
            case $part in
            ./build/ggp*) run_command "$part" ;;
            bash\ scripts/* | scripts/*) check_script "$part" ;;
            esac
        done
    done <"$block"
done
echo "readme: $passed passed, $failed failed"
[ $failed = 0 ]
