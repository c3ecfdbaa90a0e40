#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 30), from its committed seeds and the
# corpus earlier runs grew (corpus/, git-ignored); a crash stops the script, its input
# is in artifacts/<target>/. Figures of each run in logs/<target>.log (executions,
# coverage, peak memory). docs/fuzzing.md says why libFuzzer and how to replay a crash.
#
# Targets run FUZZ_JOBS at a time (default: one per core), each on its own core.
#
#   crates/fuzz/run.sh 600                   # ten minutes a target
#   crates/fuzz/run.sh 30 fen api            # some targets
#   FUZZ_JOBS=1 crates/fuzz/run.sh 600 fen   # one at a time (a core kept for other work)
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(fen notation api protocol learned_eval books tables capi wasm_api specs
    config checkpoint samples games labels chunk arena_records)

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install -q cargo-fuzz --version 0.13.2 --locked
fi
# libFuzzer's instrumentation needs `-Z` flags: nightly, or stable told to allow them.
export RUSTC_BOOTSTRAP=1
# AddressSanitizer (cargo-fuzz's default) in a release build with debug assertions.
if [ $# -eq 0 ]; then
    cargo fuzz build --fuzz-dir . --release --debug-assertions
else
    for t in "${targets[@]}"; do cargo fuzz build --fuzz-dir . --release --debug-assertions "$t"; done
fi
jobs=${FUZZ_JOBS:-$(nproc)}
if ! [[ "$jobs" =~ ^[1-9][0-9]*$ ]]; then
    echo "FUZZ_JOBS must be a positive whole number, not '$jobs'" >&2
    exit 2
fi
mkdir -p logs
fuzz() {
    local t=$1
    mkdir -p "corpus/$t" "artifacts/$t"
    echo "== $t: ${secs}s"
    cargo fuzz run --fuzz-dir . --release --debug-assertions "$t" "corpus/$t" "seeds/$t" -- \
        -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        -artifact_prefix="artifacts/$t/" >"logs/$t.log" 2>&1 || true
    # The summary lines, one target's together however many run at once.
    grep -E "^(stat::|Done|==|SUMMARY|INFO: -max_total_time)" "logs/$t.log" | sed "s/^/$t: /" || true
}
failed=()
running=0
for t in "${targets[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    fuzz "$t" &
    running=$((running + 1))
done
wait
for t in "${targets[@]}"; do
    grep -q "^Done " "logs/$t.log" || failed+=("$t")
done
if [ ${#failed[@]} -gt 0 ]; then
    for t in "${failed[@]}"; do
        echo "fuzz target $t failed: see crates/fuzz/logs/$t.log and crates/fuzz/artifacts/$t/" >&2
    done
    exit 1
fi
