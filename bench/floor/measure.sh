#!/usr/bin/env bash
# measure.sh: the in-memory workloads (InitialSync, SteadyState, FanOut,
# FIFO) on three sides, interleaved round by round (the order rotates):
# the floor (bench/floor: a map under one mutex and direct handler calls),
# this library (bench/informer) and client-go (bench/clientgo). Writes a
# Markdown report to $OUT (default RESULTS.md next to this script): each
# side's medians, ours ÷ the floor, ours ÷ client-go, and what the
# difference from the floor pays for; the raw outputs go to $OUT.d/.
#
#   bench/floor/measure.sh                          # 10 rounds
#   ROUNDS=1 QUICK=1 OUT=/tmp/f.md bench/floor/measure.sh   # what run.sh -quick does
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-10}
out=${OUT:-$PWD/floor/RESULTS.md}
raw=$out.d
mkdir -p "$raw"
rm -f "$raw"/{floor,informer,client-go}.txt
# TEST_BINS: a directory with floor.test, informer.test and client-go.test
# already built (run.sh passes its own), else they are built here.
if [ -n "${TEST_BINS:-}" ]; then
  bin=$TEST_BINS
else
  bin=$(mktemp -d)
  trap 'rm -rf "$bin"' EXIT
  go test -c -o "$bin/floor.test" ./floor
  go test -c -o "$bin/informer.test" ./informer
  go test -c -o "$bin/client-go.test" ./clientgo
fi

# pattern, benchtime of a full run, benchtime of QUICK=1
# (fewer iterations per round than run.sh's: the rounds give the samples)
groups=(
  '^BenchmarkInitialSync$/^N=10000$/' 10x 1x
  '^BenchmarkInitialSync$/^N=100000$/' 2x 1x
  '^BenchmarkSteadyState$' 4x 1x
  '^BenchmarkFanOut$' 5x 1x
  '^BenchmarkFIFO$/^DeltaFIFO$' 0.5s 10x
)
col=1
[ -n "${QUICK:-}" ] && col=2
sides=(floor informer client-go)
load_start=$(cut -d' ' -f1 /proc/loadavg)
loads=()
start=$(date +%s)
for ((r = 0; r < rounds; r++)); do
  loads+=("$(cut -d' ' -f1 /proc/loadavg)")
  for ((g = 0; g < ${#groups[@]}; g += 3)); do
    for ((i = 0; i < 3; i++)); do
      side=${sides[(i + r) % 3]}
      "$bin/$side.test" -test.run '^$' -test.bench "${groups[g]}" -test.benchtime "${groups[g + col]}" -test.count 1 >>"$raw/$side.txt"
    done
  done
done
loads+=("$(cut -d' ' -f1 /proc/loadavg)")
elapsed=$(($(date +%s) - start))
commit=$(git log -1 --format='%h (%cd)' --date=short 2>/dev/null || echo unknown)
go run ./cmd/report -floor "$raw" \
  -measured "Measured $(date -u '+%Y-%m-%d %H:%M UTC') at commit $commit, $rounds rounds interleaved (floor, informer, client-go, the order rotating) in $((elapsed / 60)) min $((elapsed % 60)) s on $(nproc) cores; 1-minute load average at the start of each round and at the end: ${loads[*]} (at the very start $load_start)." \
  >"$out"
echo "wrote $out" >&2
