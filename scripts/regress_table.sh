#!/usr/bin/env bash
# regress_table.sh [GGP]: how far backward search gets within its time budget, written as
# tables to docs/regress.md (and printed): the lifted search (PARTS has lifted) and the
# search on decision diagrams with its soundness checks (PARTS has bdd), each between its
# own markers (<!-- lifted:begin --> and <!-- bdd:begin -->: a part not run keeps its table).
#
# Lifted: for each game, `ggp regress GAME --role A --budget B --hits N` computes α_0, β_0,
# α_1, ... until the budget is spent; per formula the table gives the seconds it took, its
# size (disjuncts, literals), whether it is complete (no cap, cut or bound under-approximated
# it), and the share of the states of N seeded random matches that satisfy it: how often a
# rollout would be cut short by it (0 for a formula that is sound but useless in play).
# Decision diagrams (issue 27's first acceptance point): per game and role `ggp regress GAME
# --role R --bdd --budget B OPTIONS` (B: BDD_BUDGET, on the connect fours 0 too) with the
# checks in OPTIONS (--verify on the connect fours and breakthroughSmallHoles, --check
# --values on tic-tac-toe), summed per run (false positives must be 0) and per step; CPU seconds from ggp itself (the network and
# the steps) and from /usr/bin/time (the whole process, grounding and checks included).
# The budget is wall clock: on a shared machine run this part under the series lock,
# `flock /tmp/ggp-series.lock nice -n -10 env PARTS=bdd scripts/regress_table.sh`.
# Environment: PARTS (default "lifted bdd"), BUDGET (default 10), MATCHES (random matches
# for the shares, default 200), HITS_SECONDS (matcher time per formula for its share,
# default 10: the native matcher can take seconds per state on tic-tac-toe's deepest
# formulas; such a row counts fewer states), BDD_BUDGET (default 10), HORIZON (the connect
# fours', default 12), VERIFY (random matches, default 30), VERIFY_SECONDS (per step,
# default 10), CORPUS (../shared/gdl-corpus), OUT (default docs/regress.md).
set -eu
case ${1:-} in -h | --help) sed '1d; /^[^#]/,$d' "$0"; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
. scripts/lib.sh
GGP=${1:-build/ggp}
BUDGET=${BUDGET:-10}
MATCHES=${MATCHES:-200}
HITS_SECONDS=${HITS_SECONDS:-10}
OUT=${OUT:-docs/regress.md}
PARTS=${PARTS:-lifted bdd}
BDD_BUDGET=${BDD_BUDGET:-10}
HORIZON=${HORIZON:-12}
VERIFY=${VERIFY:-30}
VERIFY_SECONDS=${VERIFY_SECONDS:-10}
C=${CORPUS:-../shared/gdl-corpus}

GGP=$(ensure_ggp "$GGP") || exit 1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "no commit")
[ -n "$(git status --porcelain -- regress logic engine cli 2>/dev/null)" ] && commit="$commit + local changes"
fps=0

# key=value fields of a line into an array (shared by the awk programs below)
KV='function kv(line, arr,   k, n, f, p) {
    n = split(line, f, " ")
    for (k = 1; k <= n; k++) { p = index(f[k], "="); if (p) arr[substr(f[k], 1, p - 1)] = substr(f[k], p + 1) }
}'

lifted_part() {
    local rows="" summary="" spec game role a b
    for spec in tictactoe:xplayer connect4:red breakthrough:white connect3_4x4:0; do
        game=${spec%%:*} role=${spec#*:}
        echo "regress_table: $game (budget $BUDGET s)..." >&2
        "$GGP" regress "games/$game.kif" --role "$role" --budget "$BUDGET" --hits "$MATCHES" --hits-seconds "$HITS_SECONDS" >"$tmp/$game.out"
        rows+=$(awk -v game="$game" "$KV"'
            /^hits side=/ { delete h; kv($0, h); share[h["side"] " " h["i"]] = h["share"]; hh[h["side"] " " h["i"]] = h["hits"]; st[h["side"] " " h["i"]] = h["states"] }
            /^side=/ { delete v; kv($0, v); n++; key[n] = v["side"] " " v["i"]; line[n] = sprintf("| %s | %s | %s | %s | %s | %s | %s |", game, v["side"], v["i"], v["seconds"], v["disjuncts"], v["literals"], v["complete"]) }
            END { for (k = 1; k <= n; k++) printf "%s %s (%s of %s) |\n", line[k], share[key[k]], hh[key[k]], st[key[k]] }
        ' "$tmp/$game.out")$'\n'
        # the last i with a formula that is not false, per side
        last() { awk -v side="$1" '$1 == "side=" side { split($2, a, "="); split($4, d, "="); if (d[2] > 0) i = a[2] } END { print i + 0 }' "$tmp/$game.out"; }
        a=$(last alpha) b=$(last beta)
        summary+="- $game (role $role): up to α$a and β$b (the last formulas that are not false) within $BUDGET s"$'\n'
    done
    echo "<!-- lifted:begin -->"
    echo "Made by \`scripts/regress_table.sh\` on $(date -u +%Y-%m-%d), commit $commit, $(nproc) cores,"
    echo "${cpu:-unknown cpu}, load average at the start $load (the machine is shared: seconds vary)."
    echo "Budget $BUDGET s per game (mutex proofs included). One row per formula: *seconds* to compute"
    echo "it, its size, *complete* (no for a formula a time slice, size cap or recursion bound cut:"
    echo "still sound, it describes fewer states), and *hit share*: the share of the states of"
    echo "$MATCHES seeded random matches that satisfy it (how often a rollout would stop early there)."
    echo "The matcher gets $HITS_SECONDS s per formula for this: a row with fewer states than the"
    echo "others ran out of it (its share is over the states it took, the first ones of the matches)."
    echo "A formula with 0 disjuncts is false (a step that found nothing within its share of time)."
    echo
    printf '%s\n' "$summary"
    echo "| game | side | i | seconds | disjuncts | literals | complete | hit share (states) |"
    echo "|---|---|---:|---:|---:|---:|---|---:|"
    printf '%s' "$rows"
    echo "<!-- lifted:end -->"
}

# one run of the symbolic search: name|role|file|budget (empty: BDD_BUDGET)|options; the
# connect fours also with --budget 0 (no cut: their CPU seconds say whether the steps fit in
# 10 s of one core when the machine's load stretches the wall clock)
vfy="--verify $VERIFY --verify-seconds $VERIFY_SECONDS"
BDD_SPECS=${BDD_SPECS:-"connect4|0|games/connect4.kif||--horizon $HORIZON $vfy
connect4|1|games/connect4.kif||--horizon $HORIZON $vfy
connectFour|0|$C/connectFour.kif||--horizon $HORIZON $vfy
connectFour|1|$C/connectFour.kif||--horizon $HORIZON $vfy
connect4|0|games/connect4.kif|0|--horizon $HORIZON $vfy
connect4|1|games/connect4.kif|0|--horizon $HORIZON $vfy
connectFour|0|$C/connectFour.kif|0|--horizon $HORIZON $vfy
connectFour|1|$C/connectFour.kif|0|--horizon $HORIZON $vfy
tictactoe|0|games/tictactoe.kif||--values --check
tictactoe|1|games/tictactoe.kif||--values --check
breakthroughSmallHoles|0|$C/breakthroughSmallHoles.kif||$vfy
breakthroughSmallHoles|1|$C/breakthroughSmallHoles.kif||$vfy"}

# per run: the deepest complete step of each side (and what it is exact on), the nodes of
# steps 1 and 5, the CPU seconds, and the checks summed over every step of every sequence
bdd_row() {
    awk -v game="$1" -v role="$2" -v opts="$3" -v ucpu="$4" -v wall="$5" -v rc="$6" "$KV"'
        /^# bdd mode=/ { kv($0, h) }
        /^side=(alpha|beta) / { delete v; kv($0, v); s = v["side"]; nodes[s " " v["i"]] = v["nodes"]
            if (v["complete"] == "yes") { last[s] = v["i"]; fix[s] = v["fixpoint"]; wi[s] = v["within"] } }
        /^# bdd seconds=/ { delete b; kv($0, b) }
        /^(verify|check) side=/ { delete v; kv($0, v); how = $1; rows++
            if (v["states"] > states) states = v["states"]
            fp += v["false_pos"] + v["late"]; miss += v["misses"]; und += v["undecided"] }
        /^check bounds / { delete v; kv($0, v); bounds = sprintf("; the bounds of its %s non-terminal states: %s meet, %s exact, %s wrong", v["states"], v["proven"], v["exact"], v["wrong"]) }
        function deep(s) { return s in last ? last[s] (fix[s] == "yes" ? " (fixpoint)" : "") (wi[s] != "" ? " (within " wi[s] ")" : "") : "–" }
        function nd(s) { return (s " 1" in nodes ? nodes[s " 1"] : "–") ", " (s " 5" in nodes ? nodes[s " 5"] : "–") }
        END {
            chk = rows ? sprintf("%s: %d states, %d steps%s", how == "check" ? "--check (every state)" : "--verify", states, rows, bounds) : "none (exit " rc ")"
            printf "| %s | %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %d | %d |\n", game, role, opts,
                deep("alpha"), deep("beta"), nd("alpha"), nd("beta"), b["live_nodes"], h["network_seconds"], b["cpu"], ucpu, wall, chk, fp, miss, und }' "$7"
}

# per step of the alpha and beta sides, with its check
bdd_steps() {
    awk -v game="$1" -v role="$2" "$KV"'
        /^side=(alpha|beta) / { delete v; kv($0, v); n++; key[n] = v["side"] " " v["i"]
            line[n] = sprintf("| %s | %s | %s | %s | %s | %s | %s | %s |", game, role, v["side"], v["i"], "within" in v ? v["within"] : "all", v["cpu"], v["nodes"], v["complete"]) }
        /^(verify|check) side=(alpha|beta) / { delete v; kv($0, v)
            c[v["side"] " " v["i"]] = sprintf(" %s | %s | %s | %d | %s |", v["states"], v["exact"], v["hits"], v["false_pos"] + v["late"], v["misses"]) }
        END { for (k = 1; k <= n; k++) printf "%s%s\n", line[k], key[k] in c ? c[key[k]] : " – | – | – | – | – |" }' "$3"
}

bdd_part() {
    local rows="" steps="" name role file budget opts rc u s e k=0
    while IFS='|' read -r name role file budget opts; do
        [ -n "$name" ] || continue
        k=$((k + 1)) budget=${budget:-$BDD_BUDGET}
        echo "regress_table: $name role $role --bdd --budget $budget $opts..." >&2
        set +e
        # shellcheck disable=SC2086
        /usr/bin/time -f "%U %S %e" -o "$tmp/bdd$k.time" "$GGP" regress "$file" --role "$role" --bdd \
            --budget "$budget" $opts >"$tmp/bdd$k.out" 2>"$tmp/bdd$k.err"
        rc=$?
        set -e
        read -r u s e < <(tail -1 "$tmp/bdd$k.time") || u=0 s=0 e=?
        rows+=$(bdd_row "$name" "$role" "--budget $budget $opts" "$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')" "$e" "$rc" "$tmp/bdd$k.out")$'\n'
        [ "$name" = tictactoe ] || [ "$role" != 0 ] || steps+=$(bdd_steps "$name" "$budget" "$tmp/bdd$k.out")$'\n'
    done <<<"$BDD_SPECS"
    fps=$(printf '%s' "$rows" | awk -F'|' '{ s += $15 } END { print s + 0 }')
    echo "<!-- bdd:begin -->"
    echo "Made by \`scripts/regress_table.sh\` (PARTS=bdd) on $(date -u +%Y-%m-%d), commit $commit, $(nproc) cores,"
    echo "${cpu:-unknown cpu}, load average at the start $load. \`ggp regress FILE --role R --bdd OPTIONS\`,"
    echo "the budget wall clock (0: none); *search CPU s*: ggp's own count for the network and"
    echo "the steps on one core, *process CPU s* (user + system) and *wall s*: the whole run, grounding and"
    echo "the checks included. *α*, *β*: the deepest complete step (fixpoint: no later step adds a state;"
    echo "\`within d\`: with \`--horizon D\`, step i is exactly α_i ∩ R_d, d = D − i, where R_d is the states"
    echo "reachable within d plies of the initial state: every state it holds is in the global α_i, and"
    echo "every state of α_i within d plies of the start is in it; it is not the global α_i). Checks:"
    echo "\`--verify N\` searches every state of N seeded random matches that a step claims over the real"
    echo "moves (the claim: its coalition forces the goal within i steps) and, for complete steps, the"
    echo "states within the step's d plies that it does not claim (misses); \`--check\` compares every"
    echo "reachable state with the exact solver. Summed over every step of every sequence (α, β, and"
    echo "with \`--values\` the bounds of every goal value); *false positives* must be 0."
    echo
    echo "| game | role | options | α | β | α_1, α_5 nodes | β_1, β_5 nodes | live nodes at the end | network wall s | search CPU s | process CPU s | wall s | checked | false positives | misses | undecided |"
    echo "|---|---:|---|---|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|"
    printf '%s' "$rows"
    echo
    echo "Per step, role 0 (the other role's α is this β; CPU s of the step, nodes of its diagram,"
    echo "*within*: the d above; the check's states, the exact forced ones among them, the step's"
    echo "hits, false positives, misses):"
    echo
    echo "| game | budget | side | i | within | CPU s | nodes | complete | states | exact | hits | false positives | misses |"
    echo "|---|---:|---|---:|---|---:|---:|---|---:|---:|---:|---:|---:|"
    printf '%s' "$steps"
    echo "<!-- bdd:end -->"
}

[ -f "$OUT" ] || printf '# Backward search: sequences within the time budget\n' >"$OUT"
for part in $PARTS; do
    "${part}_part" >"$tmp/$part.md"
    replace_section "$OUT" "$part" "$tmp/$part.md"
    cat "$tmp/$part.md"
done
[ "$fps" = 0 ] || { echo "regress_table: FAILED: $fps false positives" >&2; exit 1; }
