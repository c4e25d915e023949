#!/usr/bin/env bash
# cc_units.sh GAME [GGP]: what compiling GAME's generated C costs, unit by unit, for
# docs/engine.md ("cc time of big programs"). The engine's compile runs its units in
# parallel and reports only the wall clock; here `ggp bench --engine compiled` writes the
# units through a stand-in compiler (GGP_CC) that keeps a copy of each and compiles
# nothing, then each unit is compiled alone with the engine's flags (the first line of
# every unit names them) under /usr/bin/time. Prints per unit its bytes, CPU seconds and
# the compiler's peak memory, then the total, the longest unit (what two compilers wait
# for at least) and the peak.
#
# Environment: as for ggp (GGP_COMPILE_MAX_LITS to take a network over the cap,
# GGP_GROUND_SECONDS); CC (default cc) compiles the copies.
set -u
if [ $# -lt 1 ]; then
    echo "usage: scripts/cc_units.sh GAME [GGP]" >&2
    exit 2
fi
cd "$(dirname "$0")/.." || exit 1
. scripts/lib.sh
GGP=$(ensure_ggp "${2:-build/ggp}") || exit 1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/units" "$dir/cache"
# the stand-in: keeps each unit (the name's tail, N.c), succeeds on units, fails the link
cat >"$dir/keep.sh" <<'EOF'
#!/bin/sh
unit=0
for a in "$@"; do
    case "$a" in *.c) unit=1 && cp "$a" "$KEEP_DIR/$(basename "$a" | sed 's/.*tmp\.//')" ;; esac
done
[ $unit = 1 ]
EOF
chmod +x "$dir/keep.sh"
KEEP_DIR="$dir/units" GGP_CC="$dir/keep.sh" GGP_CACHE="$dir/cache" \
    "$GGP" bench "$1" --engine compiled --seconds 0.01 >/dev/null 2>&1
n=$(find "$dir/units" -name '*.c' | wc -l)
if [ "$n" = 0 ]; then
    echo "$1: no units written (no compiled code for it: see ggp bench --engine compiled)" >&2
    exit 1
fi
# the flags: the header's first line is "/* COMPILER FLAGS */"
flags=$(head -1 "$dir/units/0.c" | sed 's|^/\* [^ ]* ||; s| \*/$||')
echo "$(basename "$1"): $n units, flags $flags, load $(cut -d' ' -f1-3 /proc/loadavg)"
for f in $(ls "$dir/units" | sort -n); do
    t=$({ /usr/bin/time -f '%U %S %M' ${CC:-cc} $flags -fPIC -c -w -o "$dir/u.o" \
        "$dir/units/$f"; } 2>&1 | tail -1)
    echo "$f $(wc -c <"$dir/units/$f") $t"
done | awk '{ c = $3 + $4; printf "  unit %s: %d bytes, %.2f CPU s, %d MB\n", $1, $2, c, $5 / 1024
              tot += c; if (c > mx) { mx = c; mu = $1 }; if ($5 > pk) pk = $5 }
            END { printf "total %.1f CPU s; longest unit %s, %.1f s; peak %d MB\n", tot, mu, mx, pk / 1024 }'
