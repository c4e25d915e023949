#!/usr/bin/env bash
# fuzz_report.sh RUNS.tsv: prints docs/fuzz.md from the runs scripts/fuzz.sh recorded.
set -u
# The hand-written findings between the notes markers of the existing docs/fuzz.md are kept.
runs=${1:-docs/fuzz_runs.tsv}
[ -f "$runs" ] || { echo "usage: $0 RUNS.tsv (written by scripts/fuzz.sh)" >&2; exit 2; }
notes=""
[ -f docs/fuzz.md ] && notes=$(sed -n '/<!-- notes:begin -->/,/<!-- notes:end -->/p' docs/fuzz.md)
cat <<'HEAD'
# Fuzzing

Written by `scripts/fuzz.sh` from its runs (`docs/fuzz_runs.tsv`). Each libFuzzer target of
`tests/fuzz/` is built with clang, AddressSanitizer and UndefinedBehaviorSanitizer
(`-DGGP_FUZZ=ON`) and run under `nice -n 19` on a machine shared with other work, so the
executions per second vary with the load (the load average when each run started is
given). A crash, a leak, undefined behaviour, a run over 25 s on one input or over 2 GB of
memory stops the run and counts as a crash.

| target | what it feeds |
|---|---|
| `parse` | arbitrary bytes as game text: parser, rule base, validation |
| `pipeline` | game text through parse, validate, then a few random steps of the interpreter (legal, next, goal, sees) |
| `protocol` | request bodies, one message or a match's messages separated by blank lines: `proto_parse`, then an agent (START, PLAY, STOP, ABORT, GDL and GDL-II forms) |
| `http` | raw bytes sent to a `ggp serve` HTTP server on loopback (headers, bodies, chunking, sizes); the reply must be a well-formed HTTP response |
| `ground` | game text that loads and grounds within a count of work, played by the ground engine and the interpreter side by side (`ggp ground --check`'s differential: state, terminal, goals, legal moves, percepts, a playout); any difference is a failure |

Open crashes: none. Every failure the runs found is fixed and its input replayed by CTest
(Findings, below); a run that stopped on one counts it in its row.

## Runs

| ended (UTC) | target | wall s | executions | coverage (edges) | features | corpus | crashes | load at start |
|---|---|---:|---:|---:|---:|---:|---:|---|
HEAD
tail -n +2 "$runs" | awk -F'\t' '{printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1,$2,$3,$4,$5,$6,$7,$8,$9}'
echo
echo "## Totals per target"
echo
echo "| target | runs | wall s | executions | crashes |"
echo "|---|---:|---:|---:|---:|"
tail -n +2 "$runs" | awk -F'\t' '
    { r[$2]++; s[$2]+=$3; e[$2]+=$4; if ($8 ~ /^[0-9]+$/) c[$2]+=$8; else c[$2]+=1; S+=$3; E+=$4 }
    END { for (t in r) printf "| %s | %d | %d | %d | %d |\n", t, r[t], s[t], e[t], c[t];
          printf "| all | | %d (%.2f h) | %d | |\n", S, S/3600, E }'
echo
echo "## Findings"
echo
if [ -n "$notes" ]; then echo "$notes"; else printf '<!-- notes:begin -->\n(none yet)\n<!-- notes:end -->\n'; fi
