#!/usr/bin/env bash
# Runs the side-by-side benchmarks of this library (bench/informer) and
# client-go's tools/cache (bench/clientgo), compares them with benchstat and
# regenerates BENCHMARKS.md at the repository root from the results.
#
#   bench/run.sh          full run: 6 rounds, ~15-20 minutes on 2 cores;
#                         raw outputs in bench/results/, BENCHMARKS.md rewritten
#   bench/run.sh -quick   every benchmark, tiny benchtime (< 2 minutes):
#                         checks that they still run; results in
#                         bench/results/quick/, BENCHMARKS.md untouched;
#                         BENCH_QUICK=1 shrinks the HTTP workloads (HTTPPods:
#                         500 pods and 1,000 events; Footprint: 1,000 pods;
#                         the scale benchmark: 1,000 pods)
#   BENCH_SCALE_PODS=500000 bench/run.sh   the scale benchmark at half a
#                         million pods (default 50,000; peak RSS grows
#                         linearly: about ten times the 50,000 figures),
#                         kept in bench/scale/RESULTS-500000.md, its own
#                         section of BENCHMARKS.md (the 50,000 one stays)
#
# Every section of BENCHMARKS.md comes from results: the benchmarks' raw
# outputs and benchstat (results/), bench/floor/RESULTS.md (the in-memory
# workloads against a map and direct calls, 10 rounds of their own;
# bench/floor/measure.sh alone, then `go run ./cmd/report -splice -results
# DIR -out ../BENCHMARKS.md` with floor.md in DIR, updates that section
# only), bench/cmd/hotpath/RESULTS.md (instruction counts, commit against
# commit, measured by hand with valgrind),
# bench/deps/RESULTS.md,
# bench/scale/RESULTS.md and RESULTS-<N>.md, bench/realserver/RESULTS.md
# (a real kube-apiserver; skipped, saying so, without shared/kube-apiserver),
# bench/warmstart/RESULTS.md (warm restarts: 20,000 and 100,000 pods in a
# full run, 1,000 with -quick), RESULTS-<N>.md (other sizes:
# WARM_PODS=500000 OUT=$PWD/warmstart/RESULTS-500000.md warmstart/measure.sh)
# and NOTES.md (measured by hand).
#
# Each round runs every benchmark group once for client-go and once for ours
# (alternating which goes first), so that both see the same machine
# conditions; the rounds give benchstat its samples (count=6).
set -euo pipefail
cd "$(dirname "$0")"

quick=false
case "${1:-}" in
  -quick | --quick) quick=true ;;
  "") ;;
  *) echo "usage: $0 [-quick]" >&2; exit 2 ;;
esac

rounds=${BENCH_ROUNDS:-6} # BENCH_ROUNDS: fewer rounds while developing
results=results
if $quick; then
  rounds=1
  results=results/quick
  export BENCH_QUICK=1
fi
footprint_pods=100000
$quick && footprint_pods=1000
footprint_rounds=3 # Footprint: live heap, deterministic; 3 samples suffice
mkdir -p "$results"
rm -f "$results"/{client-go,informer,footprint-map,benchstat,env,load}.txt "$results"/stderr.log

# Benchmark groups: pattern, benchtime of a full run, benchtime of -quick.
# Big workloads: one op is one whole workload, so a fixed count of ops.
groups=(
  '^BenchmarkInitialSync$/^N=10000$/' 40x 1x
  '^BenchmarkInitialSync$/^N=100000$/' 8x 1x
  '^BenchmarkSteadyState$' 12x 1x
  '^BenchmarkFanOut$' 15x 1x
  '^BenchmarkBlockedHandler$' 3x 1x
  '^BenchmarkIndexer$' 1s 100x
  '^BenchmarkFIFO$' 1s 10x
  '^BenchmarkWorkqueue$/^(AddGetDone|AddAfter)' 1s 100x
  '^BenchmarkWorkqueue$/^InformerToWorker' 12x 1x
  '^BenchmarkHTTPSource$' 6x 1x
  '^BenchmarkHTTPPods$' 1x 1x
  '^BenchmarkClient$' 1s 10x
)
bt_col=1
$quick && bt_col=2

# The library measured is the working tree of the root package (replace
# => ../): say which commit, and whether its files differed from it.
informer_rev="commit $(git log -1 --format='%h (%cd)' --date=short 2>/dev/null || echo unknown)"
if [ -n "$(git status --porcelain -- ../*.go 2>/dev/null)" ]; then
  informer_rev="$informer_rev, with uncommitted changes to the root package"
fi

start=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

echo "== building test binaries"
go vet ./...
go test -c -o "$results/client-go.test" ./clientgo
go test -c -o "$results/informer.test" ./informer
go test -c -o "$results/floor.test" ./floor
go build -o "$results/footprint" ./cmd/footprint

# Sample the load average every 15 s while the benchmarks run.
(while true; do cat /proc/loadavg >>"$results/load.txt"; sleep 15; done) &
sampler=$!
trap 'kill "$sampler" 2>/dev/null || true' EXIT

run_one() { # impl pattern benchtime
  "$results/$1.test" -test.run '^$' -test.bench "$2" -test.benchtime "$3" -test.count 1 \
    >>"$results/$1.txt" 2>>"$results/stderr.log" || {
    echo "benchmark $2 failed for $1; see $results/stderr.log and $results/$1.txt" >&2
    tail -20 "$results/$1.txt" >&2
    exit 1
  }
}

run_footprint() { # impl output
  "$results/footprint" -impl "$1" -n "$footprint_pods" >>"$results/$2" 2>>"$results/stderr.log" || {
    echo "footprint failed for $1; see $results/stderr.log" >&2
    exit 1
  }
}

for ((r = 1; r <= rounds; r++)); do
  echo "== round $r of $rounds ($(cut -d' ' -f1 /proc/loadavg) load)"
  for ((g = 0; g < ${#groups[@]}; g += 3)); do
    pat=${groups[g]}
    bt=${groups[g + bt_col]}
    if ((r % 2)); then order=(client-go informer); else order=(informer client-go); fi
    for impl in "${order[@]}"; do
      t0=$SECONDS
      run_one "$impl" "$pat" "$bt"
      echo "   $impl $pat ($bt): $((SECONDS - t0)) s"
    done
  done
  # Footprint: one process per measurement (map = the floor).
  if ((r <= footprint_rounds)); then
    if ((r % 2)); then order=(map client-go informer); else order=(informer client-go map); fi
    for impl in "${order[@]}"; do
      t0=$SECONDS
      case $impl in
        map) run_footprint map footprint-map.txt ;;
        *) run_footprint "$impl" "$impl.txt" ;;
      esac
      echo "   $impl footprint (N=$footprint_pods, own process): $((SECONDS - t0)) s"
    done
  fi
done

kill "$sampler" 2>/dev/null || true
trap - EXIT
elapsed=$(($(date +%s) - start))

echo "== benchstat"
if ! command -v benchstat >/dev/null; then
  export PATH="$PATH:$(go env GOPATH)/bin"
fi
if ! command -v benchstat >/dev/null; then
  go install golang.org/x/perf/cmd/benchstat@latest || echo "could not install benchstat" >&2
fi
if command -v benchstat >/dev/null; then
  benchstat -ignore pkg client-go="$results/client-go.txt" informer="$results/informer.txt" >"$results/benchstat.txt"
fi

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "mode: $($quick && echo "quick (1 round, tiny benchtime: a check, not for comparison)" || echo "full ($rounds rounds)")"
  echo "go: $(go version | cut -d' ' -f3-)"
  echo "CPU: $cpu"
  echo "cores: $(nproc)"
  echo "memory: $mem"
  echo "kernel: $(uname -sr)"
  echo "client-go: $(go list -m -f '{{.Version}}' k8s.io/client-go)"
  echo "informer: $informer_rev"
  echo "benchtime per round: $(for ((g = 0; g < ${#groups[@]}; g += 3)); do printf '`%s` %s; ' "${groups[g]}" "${groups[g + bt_col]}"; done | sed 's/; $//')"
  echo "HTTP workloads: HTTPPods $($quick && echo "500 pods, 1,000 events (quick)" || echo "20,000 pods, 50,000 events"); Footprint $footprint_pods pods, one process per measurement, $((rounds < footprint_rounds ? rounds : footprint_rounds)) rounds"
  echo "load average at start (1, 5, 15 min): $load_start"
  echo "duration of the benchmark runs: $((elapsed / 60)) min $((elapsed % 60)) s"
} >"$results/env.txt"

if ! $quick; then
  echo "== dependency weight (bench/deps/measure.sh)"
  if [ -x ../../shared/kube-apiserver/start ]; then
    deps/measure.sh >/dev/null
  else
    NO_RUN=1 deps/measure.sh >/dev/null
  fi
fi
echo "== scale and footprint at scale (bench/scale/measure.sh)"
rm -f "$results"/scale-*.md "$results"/realserver.md
if $quick; then
  SCALE_PODS=1000 FOOTPRINT_PODS=500 OUT="$PWD/$results/scale.md" scale/measure.sh >/dev/null
else
  # 50,000 pods is the scale section; another size (BENCH_SCALE_PODS)
  # keeps a results file and a section of its own, and leaves them alone.
  scale_pods=${BENCH_SCALE_PODS:-50000}
  if [ "$scale_pods" = 50000 ]; then
    SCALE_PODS=50000 OUT="$PWD/$results/scale.md" scale/measure.sh >/dev/null
    cp "$results/scale.md" scale/RESULTS.md
    cp "$results/scale.md.raw" scale/RESULTS.md.raw
  else
    SCALE_PODS=$scale_pods OUT="$PWD/$results/scale-$scale_pods.md" scale/measure.sh >/dev/null
    cp "$results/scale-$scale_pods.md" "scale/RESULTS-$scale_pods.md"
    cp "$results/scale-$scale_pods.md.raw" "scale/RESULTS-$scale_pods.md.raw"
    cp scale/RESULTS.md "$results/scale.md"
  fi
  for f in scale/RESULTS-*.md; do
    [ -f "$f" ] && cp "$f" "$results/scale-${f#scale/RESULTS-}"
  done
fi

echo "== against a real kube-apiserver (bench/realserver/measure.sh)"
if $quick; then
  OBJECTS=500 ROUNDS=1 OUT="$PWD/$results/realserver.md" realserver/measure.sh >/dev/null
else
  OUT="$PWD/$results/realserver.md" realserver/measure.sh >/dev/null
  cp "$results/realserver.md" realserver/RESULTS.md
  cp "$results/realserver.md.raw" realserver/RESULTS.md.raw
fi

echo "== warm restarts (bench/warmstart/measure.sh)"
rm -f "$results"/warmstart*.md "$results"/warmstart*.md.raw
if $quick; then
  QUICK=1 WARM_PODS=1000 OUT="$PWD/$results/warmstart.md" warmstart/measure.sh >/dev/null
else
  OUT="$PWD/$results/warmstart.md" warmstart/measure.sh >/dev/null
  cp "$results/warmstart.md" warmstart/RESULTS.md
  cp "$results/warmstart.md.raw" warmstart/RESULTS.md.raw
fi
for f in warmstart/RESULTS-*.md; do # other sizes, measured on their own
  [ -f "$f" ] && cp "$f" "$results/warmstart-${f#warmstart/RESULTS-}"
done
if [ -f warmstart/NOTES.md ]; then # measured by hand: see its text
  cp warmstart/NOTES.md "$results/warmstart-notes.md"
fi

echo "== the floor: in-memory workloads against a map and direct calls (bench/floor/measure.sh)"
rm -f "$results/floor.md"
if $quick; then
  TEST_BINS="$PWD/$results" ROUNDS=1 QUICK=1 OUT="$PWD/$results/floor.md" floor/measure.sh >/dev/null
else
  TEST_BINS="$PWD/$results" floor/measure.sh >/dev/null
  cp floor/RESULTS.md "$results/floor.md"
fi

cp cmd/hotpath/RESULTS.md "$results/hotpath.md"

if [ -f deps/RESULTS.md ]; then
  cp deps/RESULTS.md "$results/deps.md"
fi
if [ -f shard/RESULTS.md ]; then # go run ./cmd/shard -n 10000 -out shard/RESULTS.md
  cp shard/RESULTS.md "$results/shard.md"
fi
if [ -f sharing/RESULTS.md ]; then # measured by hand: see its text
  cp sharing/RESULTS.md "$results/sharing.md"
fi

echo "== summary (informer ÷ client-go; below 1 is better)"
if $quick; then
  go run ./cmd/report -results "$results" -out "$results/BENCHMARKS.md"
else
  go run ./cmd/report -results "$results" -out ../BENCHMARKS.md
  echo "wrote BENCHMARKS.md"
fi
echo "took $((elapsed / 60)) min $((elapsed % 60)) s (benchmarks), $(($(date +%s) - start)) s in all"
