#!/usr/bin/env python3
"""league_table.py TSV: docs/league.md from the rows scripts/league.sh appends (issue 25).

One table of every series, newest last: our player's switches against the opponent's,
W-D-L from our side, our mean goal with its 95% interval, and the machine load before
and after the series (a loaded machine penalises both sides, not always equally)."""
import csv
import sys


def main():
    rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
    out = ["# League (issue 25)", "",
           "Made by `scripts/league.sh table` from `docs/league.tsv`; every row is one series "
           "(`scripts/league.sh local|sparring ...`). `local`: `ggp match --swap` between two "
           "`ggp serve` players of this build; `sparring`: ggp-base's GameServer against "
           "Sancho or a ggp-base sample gamer (../shared/sparring). Seats alternate; W-D-L and "
           "the mean goal are ours, ± the 95% interval of the mean. Load: 1-minute load "
           "average before / after the series (2 cores).", "",
           "| date (UTC) | rev | mode | game | clocks | ours | opponent | n | W-D-L | mean ± 95% | errors | load | note |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append("| %s | %s | %s | %s | %s/%s | `%s` | `%s` | %s | %s-%s-%s | %s ± %s | %s | %s / %s | %s |" % (
            r["date"], r["rev"], r["mode"], r["game"], r["start"], r["play"], r["ours"],
            r["opponent"], r["n"], r["wins"], r["draws"], r["losses"], r["mean"], r["ci95"],
            r["errors"], r["load_before"], r["load_after"], r.get("note") or ""))
    print("\n".join(out))


if __name__ == "__main__":
    main()
