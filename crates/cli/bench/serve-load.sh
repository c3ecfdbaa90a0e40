#!/usr/bin/env bash
# Load test of `fanorona serve` on the loopback, bounded in time, with oha (a maintained
# HTTP load generator from crates.io: `cargo install oha --locked`). Three phases of
# SECONDS each (default 60):
#   1. /api/legal, 64 concurrent clients;
#   2. /api/play (POST), 64 concurrent clients;
#   3. /api/analyze, 32 concurrent clients asking for far more than the caps
#      (`hash=4096,threads=256,time=1s`), past the server's concurrency limit.
# `soak SECONDS` runs the three at once for SECONDS instead (a third of the clients
# each): the soak of docs/RESULTS.md "Doors", which asks that resident memory stop
# growing after the warm-up (the first tenth); it fails if the last tenth's mean is more
# than 10 % above the mean of the tenth after the warm-up.
# Throughout, the server's resident memory is sampled every second and /api/info is
# asked every second (a failure there is a failure of the test). Prints a summary; the
# raw figures are in $OUT (default target/serve-load/), the memory also as metrics lines
# (rss.jsonl) for `fanorona plot --metrics $OUT/rss.jsonl --tag serve/rss_mib --x seconds`.
#
#   cargo build --release -p fanorona-cli && crates/cli/bench/serve-load.sh 60
#   crates/cli/bench/serve-load.sh soak 1800
set -euo pipefail
cd "$(dirname "$0")/../../.."
soak=0
if [ "${1:-}" = soak ]; then
    soak=1
    shift
fi
secs=${1:-60}
out=${OUT:-target/serve-load}
bin=${FANORONA:-target/release/fanorona}
mkdir -p "$out"
command -v oha >/dev/null || { echo "oha is missing: cargo install oha --locked" >&2; exit 2; }

port=18${RANDOM:0:3}
"$bin" serve --port "$port" --max-time 2s --max-analyses 2 --queue 8 --max-hash 64 \
    >"$out/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; kill $sampler 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 50); do curl -fs "http://127.0.0.1:$port/api/info" >/dev/null && break; sleep 0.2; done

# The sampler: resident memory (KiB) and whether /api/info answered, every second.
(
    while kill -0 $server 2>/dev/null; do
        rss=$(awk '/VmRSS/ {print $2}' /proc/$server/status)
        code=$(curl -s -o /dev/null -m 5 -w '%{http_code}' "http://127.0.0.1:$port/api/info" || echo 000)
        echo "$(date +%s.%N) $rss $code"
        sleep 1
    done
) >"$out/samples.txt" &
sampler=$!

base="http://127.0.0.1:$port"
tsivy='BBBBBBBBB%2FBBBBBBBBB%2FBWBW1BWBW%2FWWWWWWWWW%2FWWWWWWWWW%20w%200%200'
legal() { oha -z "${secs}s" -c "$1" --no-tui --output-format json "$base/api/legal?fen=$tsivy" >"$out/legal.json"; }
play() {
    oha -z "${secs}s" -c "$1" --no-tui --output-format json -m POST -T application/json \
        -d '{"fen":"BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 0","turn":"d3e3(+1)"}' \
        "$base/api/play" >"$out/play.json"
}
analyze() {
    oha -z "${secs}s" -c "$1" --no-tui --output-format json \
        "$base/api/analyze?fen=$tsivy&engine=ab%3Atime%3D1s%2Chash%3D4096%2Cthreads%3D256" >"$out/analyze.json"
}
if [ $soak = 1 ]; then
    legal 22 & a=$!
    play 22 & b=$!
    analyze 11 & c=$!
    wait $a $b $c
else
    legal 64
    play 64
    analyze 32
fi
kill $sampler 2>/dev/null || true

python3 - "$out" "$soak" <<'PY'
import json, sys
out, soak = sys.argv[1], sys.argv[2] == "1"
for name in ["legal", "play", "analyze"]:
    r = json.load(open(f"{out}/{name}.json"))
    s, lat, codes = r["summary"], r["latencyPercentiles"], r.get("statusCodeDistribution", {})
    errors = r.get("errorDistribution", {})
    print(f"{name:8} requests/s {s['requestsPerSec']:9.1f}  p50 {lat['p50']*1000:8.1f} ms  "
          f"p99 {lat['p99']*1000:8.1f} ms  statuses {codes}  errors {errors}")
rows = [l.split() for l in open(f"{out}/samples.txt") if len(l.split()) == 3]
rss = [int(r[1]) for r in rows if r[1].isdigit()]
info = [r[2] for r in rows]
print(f"server resident memory: max {max(rss)/1024:.0f} MiB over {len(rss)} samples; "
      f"/api/info answered 200 in {info.count('200')} of {len(info)} samples")
with open(f"{out}/rss.jsonl", "w") as f:
    for i, r in enumerate(rows):
        if r[1].isdigit():
            f.write(json.dumps({"tag": "serve/rss_mib", "step": i, "time": float(r[0]),
                                "value": int(r[1]) / 1024}) + "\n")
failed = info.count("200") < len(info)
if soak:
    tenth = max(1, len(rss) // 10)
    after = sum(rss[tenth:2 * tenth]) / tenth / 1024
    last = sum(rss[-tenth:]) / tenth / 1024
    print(f"soak: mean resident memory {after:.1f} MiB in the tenth after the warm-up, "
          f"{last:.1f} MiB in the last tenth ({(last / after - 1) * 100:+.1f} %)")
    failed |= last > after * 1.10
sys.exit(1 if failed else 0)
PY
