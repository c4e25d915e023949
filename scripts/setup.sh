#!/usr/bin/env bash
# setup.sh: installs what the project needs on Debian 12 (run as root), and nothing when
# everything is already there. Idempotent; prints one line when it has nothing to do.
#   build:  gcc make cmake pkg-config flex bison, libc6-dev (only a Recommends of gcc, and
#           apt runs without recommends here), libstdc++-12-dev (CaDiCaL is a static C++
#           library linked with -lstdc++; libcadical-dev depends on nothing, and only clang
#           pulled it in). gcc also provides `cc`, which the compiled engine runs.
#   libs:   libz3-dev libcmocka-dev libmicrohttpd-dev libbdd-dev (BuDDy) libcadical-dev
#   tests:  clang and its runtime libraries (libFuzzer, sanitizers: libclang-rt-dev),
#           curl (the HTTP player tests)
#   docs:   gnuplot-nox (the plots of scripts/rollout-accuracy)
set -eu -o pipefail
case ${1:-} in -h | --help) sed '1d; /^[^#]/,$d' "$0"; exit 0 ;; esac # the header above

PACKAGES="gcc libc6-dev libstdc++-12-dev make cmake pkg-config flex bison libz3-dev libcmocka-dev libmicrohttpd-dev libbdd-dev libcadical-dev clang libclang-rt-dev curl gnuplot-nox"

missing=""
for p in $PACKAGES; do
    # Installed means dpkg says "install ok installed".
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    echo "setup: all dependencies present"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages:$missing" >&2
    echo "setup: run as root (or: sudo apt-get install$missing)" >&2
    exit 1
fi

# apt works for a minute or more on a fresh system: say what it is doing as it goes.
echo "setup: installing$missing"
export DEBIAN_FRONTEND=noninteractive
echo "setup: apt-get update (reading the package lists)"
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing 2>&1 |
    grep --line-buffered -E '^(Need to get|Get:|Setting up|E:)' | sed -u 's/^/setup: /'
echo "setup: done"
