# Shared by the scripts: source it from the repository root (`. scripts/lib.sh`).

# ensure_ggp PATH: prints PATH when it is an executable other than build/ggp; build/ggp is
# brought up to date first (Release; a build/ggp left from an older checkout measured old
# code) and printed; fails when the build does.
ensure_ggp() {
    if [ "$1" != build/ggp ] && [ -x "$1" ]; then
        echo "$1"
        return
    fi
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null &&
        cmake --build build -j "$(nproc)" --target ggp >/dev/null || return 1
    echo build/ggp
}

# start_load / stop_load: one busy loop per core, at normal priority, and their end (the
# scripts that measure clocks under load; call stop_load from an EXIT trap too).
LOAD_PIDS=()
start_load() {
    local _
    for _ in $(seq 1 "$(nproc)"); do
        bash -c 'while :; do :; done' &
        LOAD_PIDS+=($!)
    done
}
stop_load() {
    local p
    for p in "${LOAD_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${LOAD_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    LOAD_PIDS=()
}

# game_files PLACE...: the games to run, one path a line: a folder's .kif and .gdl files
# (not its subfolders), sorted; any other PLACE as given.
game_files() {
    local place
    for place in "$@"; do
        if [ -d "$place" ]; then
            find "$place" -maxdepth 1 \( -name '*.kif' -o -name '*.gdl' \) | sort
        else
            echo "$place"
        fi
    done
}

# replace_section FILE MARK SECTION: FILE's lines from <!-- MARK:begin --> to
# <!-- MARK:end --> replaced by the file SECTION (which carries both markers); appended after
# a blank line when FILE has no such section, FILE made when there is none.
replace_section() {
    local out=$1 mark=$2 sec=$3
    if [ -f "$out" ] && grep -q "<!-- $mark:begin -->" "$out"; then
        awk -v sec="$sec" -v b="<!-- $mark:begin -->" -v e="<!-- $mark:end -->" '
            $0 == b { while ((getline l < sec) > 0) print l; skip = 1; next }
            $0 == e { skip = 0; next }
            !skip { print }' "$out" >"$out.new" && mv "$out.new" "$out"
    else
        { [ -f "$out" ] && cat "$out" && echo; cat "$sec"; } >"$out.new" && mv "$out.new" "$out"
    fi
}
