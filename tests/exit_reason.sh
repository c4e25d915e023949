# exit_reason.sh: sourced by the test scripts. exit_reason RC LIMIT prints why a command run
# under `timeout -k 5 LIMIT` ended with exit status RC, and what the machine was short of
# at that moment, e.g. "timed out after 60 s (load 5.1 on 2 cores; 0.3 of 23.4 GiB free)".
machine_state() {
    local load cores avail total
    load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null)
    cores=$(nproc 2>/dev/null)
    avail=$(awk '/^MemAvailable:/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo 2>/dev/null)
    total=$(awk '/^MemTotal:/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo 2>/dev/null)
    echo "load ${load:-?} on ${cores:-?} cores; ${avail:-?} of ${total:-?} GiB memory available"
}

exit_reason() {
    local rc=$1 limit=$2 what
    case $rc in
    124) what="timed out after $limit s" ;;
    137) what="killed (SIGKILL: the time-out's hard kill, or the kernel out of memory)" ;;
    134) what="aborted (SIGABRT: an assertion or a sanitizer report)" ;;
    139) what="crashed (SIGSEGV: segmentation fault)" ;;
    86) what="a sanitizer report (ASan/UBSan exit code 86)" ;;
    *) if [ "$rc" -gt 128 ]; then what="killed by signal $((rc - 128))"; else what="exited $rc"; fi ;;
    esac
    echo "$what ($(machine_state))"
}
