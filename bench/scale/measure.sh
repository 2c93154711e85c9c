#!/usr/bin/env bash
# measure.sh: the scale benchmark of issue 23, each measurement a process
# of its own (bench/cmd/footprint): the live heap held per pod, the sync
# time, the peak RSS and the relist peak, for a plain map (the floor), this
# library's informer (structural sharing on, the default, and off) and
# client-go's, over the loopback PodServer, in JSON list, streaming list
# and protobuf; and the one-template footprint (FOOTPRINT_PODS pods of
# workload.PodJSON). Writes a Markdown report to $OUT (default RESULTS.md
# next to this script), raw lines to $OUT.raw.
#
#   bench/scale/measure.sh                        # 50,000 pods (500 templates), 20,000 one-template
#   SCALE_PODS=500000 bench/scale/measure.sh      # 500,000 pods (5,000 templates)
#   SCALE_PODS=2000 FOOTPRINT_PODS=1000 OUT=/tmp/r.md bench/scale/measure.sh   # what run.sh -quick does
set -euo pipefail
cd "$(dirname "$0")"
n=${SCALE_PODS:-50000}
fp=${FOOTPRINT_PODS:-20000}
out=${OUT:-$PWD/RESULTS.md}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
(cd .. && go build -o "$bin/footprint" ./cmd/footprint)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
raw=$out.raw
: >"$raw"
run() { # label args...
	local label=$1
	shift
	echo "   $label: footprint $*" >&2
	line=$("$bin/footprint" "$@") || { echo "footprint $* failed" >&2; exit 1; }
	echo "$label|$*|$line" >>"$raw"
}
# The one-template footprint.
run "map" -impl map -n "$fp"
run "informer" -impl informer -n "$fp"
run "informer, sharing off" -impl informer -sharing off -n "$fp"
run "client-go" -impl client-go -n "$fp"
# The scale workload.
run "map" -impl map -scale -n "$n"
for mode in json json-watchlist protobuf; do
	relist=-relist
	[ "$mode" = json-watchlist ] && relist=
	run "informer" -impl informer -scale -mode "$mode" $relist -n "$n"
	run "informer, sharing off" -impl informer -sharing off -scale -mode "$mode" $relist -n "$n"
	run "client-go" -impl client-go -scale -mode "$mode" $relist -n "$n"
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

metric() { # line unit
	awk -v u="$2" '{ for (i = 2; i <= NF; i++) if ($i == u) print $(i-1) }' <<<"$1"
}
{
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`bench/scale/measure.sh\` (SCALE_PODS=$n, FOOTPRINT_PODS=$fp), $(go version | cut -d' ' -f3), $(nproc) cores; load average (1, 5, 15 min) $load_start at the start, $load_end at the end. Each row is one process: \`go run ./cmd/footprint\` with the arguments shown."
	echo
	echo "| holder | arguments | sync | B held/pod | ÷ map (floor) | ÷ client-go | peak RSS | relist peak ÷ steady (marked / held) |"
	echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	floor= cg=
	while IFS='|' read -r label args line; do
		held=$(metric "$line" B-held/pod)
		ns=$(awk '{ for (i = 2; i <= NF; i++) if ($i == "ns/op") print $(i-1) }' <<<"$line")
		rss=$(metric "$line" peak-RSS-MiB)
		rel=$(metric "$line" relist-peak/steady)
		relh=$(metric "$line" relist-held/steady)
		mode=$(sed -n 's/.*-mode \([a-z-]*\).*/\1/p' <<<"$args")
		[ "$label" = map ] && floor=$held
		if [ "$label" = map ]; then cg=; fi
		# client-go of the same workload and mode, for the ratio.
		cgline=$(awk -F'|' -v a="$args" 'BEGIN { sub(/-impl [a-z-]+ (-sharing off )?/, "", a) } $1 == "client-go" { b = $2; sub(/-impl [a-z-]+ /, "", b); if (b == a) print $3 }' "$raw")
		cgheld=$(metric "$cgline" B-held/pod)
		ratio_cg=—
		[ -n "$cgheld" ] && ratio_cg=$(awk -v a="$held" -v b="$cgheld" 'BEGIN { printf "%.2f×", a / b }')
		printf '| %s | `%s` | %.2f s | %s | %s | %s | %s | %s |\n' "$label" "$args" "$(awk -v x="$ns" 'BEGIN { print x / 1e9 }')" \
			"$(printf "%'d" "${held%.*}")" "$(awk -v a="$held" -v b="$floor" 'BEGIN { printf "%.2f×", a / b }')" "$ratio_cg" \
			"${rss:+$rss MiB}" "${rel:-—}${relh:+ / $relh}"
	done <"$raw"
} >"$out"
cat "$out"
