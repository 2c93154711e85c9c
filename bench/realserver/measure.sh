#!/usr/bin/env bash
# measure.sh: this library's informer and client-go's side by side against a
# real kube-apiserver (shared/kube-apiserver beside the repository): the
# sync of OBJECTS ConfigMaps of ~1.5 KiB, each run a process of its own
# (bench/cmd/realserver), ROUNDS rounds interleaved (the order alternates),
# in the four modes: streaming list (both clients' default) and list
# (streaming lists off), JSON and protobuf. In list mode ours also runs with
# pages of 500 (the old default), with ListResourceVersion "0" (what
# client-go asks for) and with PageSize -1 (the consistent list in one
# response), to show what the defaults trade. Writes a Markdown
# report to $OUT (default RESULTS.md next to this script), raw lines to
# $OUT.raw. Without shared/kube-apiserver it writes one line saying the
# benchmark was skipped, and exits 0.
#
#   bench/realserver/measure.sh                          # 20,000 objects, 6 rounds
#   OBJECTS=500 ROUNDS=1 OUT=/tmp/r.md bench/realserver/measure.sh   # what run.sh -quick does
set -euo pipefail
cd "$(dirname "$0")"
n=${OBJECTS:-20000}
rounds=${ROUNDS:-6}
out=${OUT:-$PWD/RESULTS.md}
raw=$out.raw
scripts=$(cd ../../.. && pwd)/shared/kube-apiserver
if [ ! -x "$scripts/start" ]; then
	echo "Skipped on $(date -u '+%Y-%m-%d %H:%M UTC'): no kube-apiserver ($scripts/start does not exist)." | tee "$out"
	: >"$raw"
	exit 0
fi
"$scripts/install" >&2
bin=$(mktemp -d)
(cd .. && go build -o "$bin/realserver" ./cmd/realserver)

# One kube-apiserver for the whole run; its watchdog stops it if this
# script dies without its trap.
env_file=$bin/env
KUBE_APISERVER_OWNER_PID=$$ "$scripts/start" >"$env_file"
set -a
# shellcheck disable=SC1090
. "$env_file"
set +a
trap '"$scripts/stop" "$KUBE_APISERVER_DIR" >/dev/null 2>&1 || true; rm -rf "$bin"' EXIT
t0=$SECONDS
"$bin/realserver" -seed "$n"
echo "   seeded $n ConfigMaps in $((SECONDS - t0)) s" >&2

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$raw"
run() { # label args...
	local label=$1
	shift
	line=$("$bin/realserver" -n "$n" "$@") || { echo "realserver $* failed" >&2; exit 1; }
	echo "   $label $*: $(awk '{ for (i = 2; i <= NF; i++) if ($i == "sync-ms") print $(i-1) }' <<<"$line") ms" >&2
	echo "$label|$*|$line" >>"$raw"
}
for ((r = 1; r <= rounds; r++)); do
	echo "== round $r of $rounds ($(cut -d' ' -f1 /proc/loadavg) load)" >&2
	for mode in watchlist list; do
		for content in json protobuf; do
			impls=("client-go" "informer")
			((r % 2)) || impls=("informer" "client-go")
			for impl in "${impls[@]}"; do
				run "$impl" -impl "$impl" -mode "$mode" -content "$content"
			done
			if [ "$mode" = list ]; then
				run "informer, pages of 500" -impl informer -mode list -content "$content" -pagesize 500
				run "informer, ListResourceVersion 0" -impl informer -mode list -content "$content" -listrv 0
				run "informer, one response" -impl informer -mode list -content "$content" -pagesize -1
			fi
		done
	done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# stats label args unit: the median, min and max of one metric over the rounds.
stats() {
	awk -F'|' -v l="$1" -v a="$2" -v u="$3" '$1 == l && $2 == a {
		n = split($3, f, /[ \t]+/); for (i = 2; i <= n; i++) if (f[i] == u) print f[i-1] }' "$raw" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR == 0) exit; m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%s %s %s %d\n", m, v[1], v[NR], NR }'
}
{
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`bench/realserver/measure.sh\` (OBJECTS=$n, ROUNDS=$rounds), kube-apiserver $(curl -s --cacert "$KUBE_CA_FILE" "$KUBE_APISERVER_URL/version" | sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p') on the same machine, $(go version | cut -d' ' -f3), $(nproc) cores; load average (1, 5, 15 min) $load_start at the start, $load_end at the end. Medians of the rounds, each run a process of its own: \`go run ./cmd/realserver\` with the arguments shown (and \`-n $n\`)."
	echo
	echo "| mode | content | client | arguments | sync (median) | min – max | ÷ client-go | B held/object | requests |"
	echo "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"
	for mode in watchlist list; do
		for content in json protobuf; do
			base="-mode $mode -content $content"
			read -r cgm _ _ _ < <(stats client-go "-impl client-go $base" sync-ms) || cgm=
			for v in "client-go|-impl client-go $base" "informer|-impl informer $base" \
				"informer, pages of 500|-impl informer $base -pagesize 500" \
				"informer, ListResourceVersion 0|-impl informer $base -listrv 0" \
				"informer, one response|-impl informer $base -pagesize -1"; do
				label=${v%%|*} args=${v#*|}
				read -r med lo hi cnt < <(stats "$label" "$args" sync-ms) || continue
				read -r held _ _ _ < <(stats "$label" "$args" B-held/obj)
				read -r reqs _ _ _ < <(stats "$label" "$args" list-requests)
				ratio=—
				[ "$label" != client-go ] && [ -n "$cgm" ] && ratio=$(awk -v a="$med" -v b="$cgm" 'BEGIN { printf "%.2f×", a / b }')
				name=$mode
				[ "$mode" = watchlist ] && name="streaming list"
				printf '| %s | %s | %s | `%s` | %.0f ms | %.0f – %.0f ms | %s | %.0f | %s |\n' "$name" "$content" "$label" "$args" "$med" "$lo" "$hi" "$ratio" "$held" "$reqs"
			done
		done
	done
} >"$out"
cat "$out"
