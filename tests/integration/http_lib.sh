# Shared by the HTTP tests and scripts/http_soak.sh (source it; needs GGP set and TMP a
# scratch directory). Servers listen on 127.0.0.1 only, on random ports in 20000-60000, and
# are killed (by pid) when the sourcing script exits.

declare -A PORT PID
SERVER_PIDS=()

http_cleanup() {
    local p
    for p in "${SERVER_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${SERVER_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
}

random_port() { echo $((20000 + (RANDOM * 32768 + RANDOM) % 40001)); }

# The bound of every wait and request here: a hang guard, never a verdict (a loaded machine
# makes a server slow to listen or to answer, not wrong).
HTTP_GUARD=300

# start_server NAME [VAR=VALUE...] -- [serve options...]: a `ggp serve` on a free random
# port; sets PORT[NAME] and PID[NAME]; its log is $TMP/NAME.log. A try ends when the
# server listens or exits (a port taken), not at a clock.
start_server() {
    local name=$1 envs=() try port pid i
    shift
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
    [ "${1:-}" = "--" ] && shift
    for try in $(seq 1 20); do
        port=$(random_port)
        env "${envs[@]}" "$GGP" serve --bind 127.0.0.1 --port "$port" "$@" 2>"$TMP/$name.log" &
        pid=$!
        for i in $(seq 1 $((HTTP_GUARD * 10))); do
            grep -q "listening on" "$TMP/$name.log" 2>/dev/null && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        if grep -q "listening on" "$TMP/$name.log" 2>/dev/null; then
            SERVER_PIDS+=("$pid")
            PORT[$name]=$port
            PID[$name]=$pid
            return 0
        fi
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    echo "cannot start server $name" >&2
    return 1
}

# post NAME BODY: POSTs BODY to server NAME; prints the reply body.
post() {
    curl -s -m "$HTTP_GUARD" -H 'Content-Type: text/acl' --data-binary "$2" \
        "http://127.0.0.1:${PORT[$1]}/"
}

# post_status NAME BODY [curl options...]: prints "HTTPCODE SECONDS BODY" of one POST.
post_status() {
    local name=$1 body=$2 out
    shift 2
    out=$(mktemp -p "$TMP")
    curl -s -m "$HTTP_GUARD" -o "$out" -w '%{http_code} %{time_total} ' \
        -H 'Content-Type: text/acl' --data-binary "$body" "$@" "http://127.0.0.1:${PORT[$name]}/" ||
        true
    cat "$out"
    rm -f "$out"
}

# alive NAME: the server process still runs and answers INFO.
alive() {
    kill -0 "${PID[$1]}" 2>/dev/null && post "$1" '( INFO )' | grep -q '(status'
}

# rss_kb PID: the resident set size from /proc.
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

# The rules of a game file as one line, comments dropped (for hand-made START messages).
rules_of() { sed 's/;.*//' "$1" | tr '\n\r\t' '   '; }

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
