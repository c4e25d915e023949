# shard.sh: sourced by the corpus test scripts. shard_filter copies to its output the lines
# of its input that belong to shard K of N, as GGP_CORPUS_SHARD=K/N says (line i, counted
# from 0, when i % N == K - 1: neighbours in a sorted list, often variants of one game, go
# to different shards); every line when the variable is unset or empty. CTest runs a corpus
# test as N shards so that the suite shows its progress and spreads the work over the cores.
shard_filter() {
    local spec=${GGP_CORPUS_SHARD:-} k n
    if [ -z "$spec" ]; then
        cat
        return 0
    fi
    k=${spec%%/*} n=${spec#*/}
    if ! [[ "$k" =~ ^[0-9]+$ && "$n" =~ ^[0-9]+$ ]] || [ "$n" -lt 1 ] || [ "$k" -lt 1 ] ||
        [ "$k" -gt "$n" ]; then
        echo "GGP_CORPUS_SHARD='$spec': expected K/N with 1 <= K <= N" >&2
        return 2
    fi
    awk -v k="$k" -v n="$n" '(NR - 1) % n == k - 1'
}
