#!/usr/bin/env python3
"""league_table.py TSV: docs/league.md from the rows scripts/league.sh appends (issue 25).

One table of every series, newest last: our player's switches against the opponent's,
W-D-L from our side, our mean goal with its 95% interval, and the machine load before
and after the series (a loaded machine penalises both sides, not always equally)."""
import csv
import math
import sys


def main():
    rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
    out = ["# League (issue 25)", "",
           "Made by `scripts/league.sh table` from `docs/league.tsv`; every row is one series "
           "(`scripts/league.sh local|sparring ...`). `local`: `ggp match --swap` between two "
           "`ggp serve` players of this build; `sparring`: ggp-base's GameServer against "
           "Sancho or a ggp-base sample gamer (../shared/sparring). Seats alternate; W-D-L and "
           "the mean goal are ours, ± the 95% interval of the mean. Load: 1-minute load "
           "average before / after the series (2 cores). A `local` row is the command "
           "`scripts/league.sh local GAME N START PLAY OURS OPPONENT` (a `sparring` row: "
           "`sparring GAME N START PLAY OURS OPPONENT`) with the row's values. `iters`: "
           "`ggp match GAME --players OURS,OPPONENT --matches N --swap --seed 1` with in-process "
           "players bounded by iterations (`mcts:iters=N`), the clocks START/PLAY far above "
           "what they use: a comparison at fixed work per move, whatever the load (no series lock). "
           "**Shares of the core**: rows before 2026-11-30 02:21 whose series ran on one core (their "
           "notes say so) ran both servers in one scheduling group, where a busy core is shared "
           "per thread: our two search threads took up to two thirds of it against Sancho's one (64/36 measured; a "
           "local series between players of equal threads was fair). From then on every server "
           "runs in a session of its own (`setsid`, the kernel's autogroups: an equal share "
           "whatever the threads; 49/51 measured).", "",
           "| date (UTC) | rev | mode | game | clocks | ours | opponent | n | W-D-L | mean ± 95% | errors | load | note |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append("| %s | %s | %s | %s | %s/%s | `%s` | `%s` | %s | %s-%s-%s | %s ± %s | %s | %s / %s | %s |" % (
            r["date"], r["rev"], r["mode"], r["game"], r["start"], r["play"], r["ours"],
            r["opponent"], r["n"], r["wins"], r["draws"], r["losses"], r["mean"], r["ci95"],
            r["errors"], r["load_before"], r["load_after"], r.get("note") or ""))
    out += pooled(rows)
    print("\n".join(out))


def same(spec):
    """A player spec with its options in one order (mcts:tt=on:ponder=on is mcts:ponder=on:tt=on)."""
    kind, _, opts = spec.partition(":")
    return ":".join([kind] + sorted(opts.split(":"))) if opts else kind


def pooled(rows):
    """Series of the same pairing (mode, game, clocks, players) pooled: W-D-L summed, the
    mean of all their matches and its 95% interval (each series' spread recovered from its
    interval: sd = ci95 / 1.96 * sqrt(n))."""
    groups = {}
    for r in rows:
        key = (r["mode"], r["game"], r["start"], r["play"], same(r["ours"]), same(r["opponent"]))
        groups.setdefault(key, []).append(r)
    out = []
    for key, rs in groups.items():
        if len(rs) < 2:
            continue
        ns = [int(r["n"]) for r in rs]
        ms = [float(r["mean"]) for r in rs]
        sds = [float(r["ci95"]) / 1.96 * math.sqrt(n) for r, n in zip(rs, ns)]
        n = sum(ns)
        mean = sum(m * k for m, k in zip(ms, ns)) / n
        ss = sum((k - 1) * sd * sd + k * (m - mean) ** 2 for m, sd, k in zip(ms, sds, ns))
        ci = 1.96 * math.sqrt(ss / (n - 1) / n) if n > 1 else 0
        w, d, l = (sum(int(r[f]) for r in rs) for f in ("wins", "draws", "losses"))
        out.append("| %s | %s | %s/%s | `%s` | `%s` | %d | %d | %d-%d-%d | %.2f ± %.2f |" % (
            key[0], key[1], key[2], key[3], key[4], key[5], len(rs), n, w, d, l, mean, ci))
    if not out:
        return []
    return ["", "## Pooled", "",
            "Series of the same pairing and clocks together (the rows above with the same mode, "
            "game, clocks and players).", "",
            "| mode | game | clocks | ours | opponent | series | n | W-D-L | mean ± 95% |",
            "|---|---|---|---|---|---|---|---|---|"] + out


if __name__ == "__main__":
    main()
