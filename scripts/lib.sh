# Shared by the scripts: source it from the repository root (`. scripts/lib.sh`).

# ensure_ggp PATH: prints PATH when it is an executable, else builds build/ggp (Release)
# and prints that; fails when the build does.
ensure_ggp() {
    if [ -x "$1" ]; then
        echo "$1"
        return
    fi
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null &&
        cmake --build build -j "$(nproc)" --target ggp >/dev/null || return 1
    echo build/ggp
}
