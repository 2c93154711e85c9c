#!/usr/bin/env bash
# measure.sh: warm restarts (issue 29), each measurement a process of its
# own (bench/cmd/warmstart) over the scale workload's pods served by the
# loopback PodServer: the snapshot's write time and size, then the start
# cold (ours and client-go's), warm inside the server's window, warm after
# it expired (one relist) and, for comparison, an ordinary relist of a
# synced informer. Each case of ours runs twice: once for the time and the
# bytes (the peak sampled every millisecond from the heap's objects), once
# with -gc for the peak of the live heap (GC cycles back to back, as
# cmd/footprint's relist peak: slower, so its time is not reported).
# client-go runs once, with the sampled peak. Writes a Markdown report to
# $OUT (default RESULTS.md next to this script) and raw lines to $OUT.raw.
#
#   bench/warmstart/measure.sh                          # 20,000 and 100,000 pods, JSON and protobuf
#   WARM_PODS=500000 OUT=$PWD/bench/warmstart/RESULTS-500000.md bench/warmstart/measure.sh
#   QUICK=1 WARM_PODS=1000 OUT=/tmp/w.md bench/warmstart/measure.sh   # what run.sh -quick does: JSON, -gc only
#
# WARM_CASES (default "client-go ours") leaves out client-go's cold start or
# ours (write, cold, warm, expired, relist): client-go at a size of its own
# is WARM_CASES=client-go.
# RSS_CAP_MIB (default 8192) kills a process whose resident set grows past
# it (the machine is shared): its row then says so instead of a figure.
# The snapshots go to a temporary directory (WARM_TMP, default the
# system's), removed at the end; at 500,000 pods the JSON one is 2.8 GB.
set -euo pipefail
cd "$(dirname "$0")"
sizes=${WARM_PODS:-20000 100000}
modes=${WARM_MODES:-json protobuf}
quick=${QUICK:-}
[ -n "$quick" ] && modes=${WARM_MODES:-json}
cap_mib=${RSS_CAP_MIB:-8192}
cases=" ${WARM_CASES:-client-go ours} "
out=${OUT:-$PWD/RESULTS.md}
raw=$out.raw
bin=$(mktemp -d)
snaps=$(mktemp -d "${WARM_TMP:-${TMPDIR:-/tmp}}/warmstart.XXXXXX")
trap 'rm -rf "$bin" "$snaps"' EXIT
(cd .. && go build -o "$bin/warmstart" ./cmd/warmstart)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$raw"

# capped runs warmstart, killing it if its RSS passes cap_mib; prints its
# line, or "killed at <MiB> MiB RSS".
capped() {
	(cd "$snaps" && exec "$bin/warmstart" "$@") >"$bin/line" 2>"$bin/err" &
	local pid=$! rss=0 killed=
	while kill -0 "$pid" 2>/dev/null; do
		rss=$(awk '/^VmRSS:/ { print int($2 / 1024) }' "/proc/$pid/status" 2>/dev/null || echo 0)
		if [ "${rss:-0}" -gt "$cap_mib" ]; then
			kill "$pid" 2>/dev/null || true
			killed=$rss
			break
		fi
		sleep 0.2
	done
	if ! wait "$pid"; then
		if [ -n "$killed" ]; then
			echo "killed at $killed MiB RSS (cap $cap_mib MiB)"
			return 0
		fi
		cat "$bin/err" >&2
		return 1
	fi
	cat "$bin/line"
}

run() { # label args...
	local label=$1
	shift
	echo "   $label: warmstart $*" >&2
	line=$(capped "$@") || { echo "warmstart $* failed" >&2; exit 1; }
	echo "$label|$*|$line" >>"$raw"
}

for n in $sizes; do
	for mode in $modes; do
		snap=$mode-$n.snap # in $snaps, where warmstart runs
		[[ $cases == *" ours "* ]] && run write -n "$n" -mode "$mode" -case write -snap "$snap"
		[[ $cases == *" client-go "* ]] && run "client-go cold" -impl client-go -n "$n" -mode "$mode" -case cold
		[[ $cases == *" ours "* ]] || continue
		for c in cold warm expired relist; do
			[ -z "$quick" ] && run "$c" -n "$n" -mode "$mode" -case "$c" -snap "$snap"
			run "$c, -gc" -n "$n" -mode "$mode" -case "$c" -snap "$snap" -gc
		done
		rm -f "${snaps:?}/$snap"
	done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

metric() { # line unit
	awk -v u="$2" '{ for (i = 2; i <= NF; i++) if ($i == u) print $(i-1) }' <<<"$1"
}
# find prints the line of the raw file with this label and arguments.
find() { awk -F'|' -v l="$1" -v a="$2" '$1 == l && $2 == a { print $3 }' "$raw"; }
fmt_ms() { [ -n "$1" ] && awk -v x="$1" 'BEGIN { if (x >= 1000) printf "%.2f s", x / 1000; else printf "%.0f ms", x }'; }
fmt_b() { [ -n "$1" ] && awk -v x="$1" 'BEGIN { if (x == 0) print "0 B"; else if (x >= 1e6) printf "%.1f MB", x / 1e6; else printf "%.1f kB", x / 1e3 }'; }
fmt_int() { [ -n "$1" ] && printf "%'d" "${1%.*}"; }
{
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`bench/warmstart/measure.sh\` (WARM_PODS=\"$sizes\"${quick:+, QUICK=1}${WARM_CASES:+, WARM_CASES=\"$WARM_CASES\"}, RSS_CAP_MIB=$cap_mib), $(go version | cut -d' ' -f3), $(nproc) cores; load average (1, 5, 15 min) $load_start at the start, $load_end at the end. Each row is one process (\`go run ./cmd/warmstart\` with the arguments shown); the peak ÷ steady columns come from a second process of the same case with \`-gc\`$([ -n "$quick" ] && echo ' (with QUICK=1 only that one: its times are slowed by the back-to-back GC cycles)')."
	echo
	echo "| pods | content | client, case | arguments | sync | list requests | watches | read from server | peak ÷ steady: heap objects | live marked / held (-gc) | peak RSS | held/pod | snapshot write | snapshot size/pod |"
	echo "| ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	while IFS='|' read -r label args line; do
		base=${label%, -gc}
		gcline=
		if [ "$base" != "$label" ]; then
			# A -gc row: the peak of its case's row, or the row itself
			# when its case ran only with -gc (QUICK).
			[ -n "$(find "$base" "${args% -gc}")" ] && continue
			gcline=$line
		else
			gcline=$(find "$label, -gc" "$args -gc")
		fi
		n=$(sed -n 's/.*-n \([0-9]*\).*/\1/p' <<<"$args")
		mode=$(sed -n 's/.*-mode \([a-z]*\).*/\1/p' <<<"$args")
		case $base in
		write) what="informer, snapshot write" ;;
		cold | warm | expired | relist) what="informer $base" ;;
		*) what=$base ;;
		esac
		if [[ $line == killed* ]]; then
			printf '| %s | %s | %s | `%s` | %s |  |  |  |  |  |  |  |  |  |\n' "$(fmt_int "$n")" "$mode" "$what" "$args" "$line"
			continue
		fi
		sync=$(metric "$line" sync-ms)
		[ -z "$sync" ] && sync=$(metric "$line" relist-ms)
		hop= marked= held=
		if [ "$gcline" = "$line" ]; then
			marked=$(metric "$line" peak/steady) held=$(metric "$line" held-peak/steady)
		else
			hop=$(metric "$line" peak/steady)
			[ -n "$gcline" ] && marked=$(metric "$gcline" peak/steady) held=$(metric "$gcline" held-peak/steady)
		fi
		printf '| %s | %s | %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$(fmt_int "$n")" "$mode" "$what" "$args" \
			"$(fmt_ms "$sync")" "$(metric "$line" lists)" "$(metric "$line" watches)" "$(fmt_b "$(metric "$line" read-B)")" \
			"$hop" "${marked:+$marked / $held}" "$(r=$(metric "$line" peak-RSS-MiB); [ -n "$r" ] && echo "$r MiB")" \
			"$(fmt_int "$(metric "$line" held-B/pod)")" \
			"$(w=$(metric "$line" write-ms); [ -n "$w" ] && echo "$(fmt_ms "$w") ($(awk -v x="$(metric "$line" write-ns/pod)" 'BEGIN { printf "%.1f µs/pod", x / 1000 }'))")" \
			"$(fmt_int "$(metric "$line" snapshot-B/pod)")"
	done <"$raw"
} >"$out"
cat "$out"
