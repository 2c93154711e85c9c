#!/usr/bin/env bash
# measure.sh: dependency weight of the same small program written three ways
# (see README.md). Prints a Markdown table and writes it, with the date, the
# Go version and the commands, to RESULTS.md next to this script.
#
#   bench/deps/measure.sh            # measure, then run each program against a real kube-apiserver
#   NO_RUN=1 bench/deps/measure.sh   # measure only
#
# Each program is its own module (go.mod in its directory), so `go list -m all`
# there is that program's module graph, as in the issue; the modules actually
# linked (`go list -deps` grouped by module) are given too.
set -euo pipefail
cd "$(dirname "$0")"
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
here=$(pwd)
programs=(informer clientgo floor factory3 clientgo3 mirror mirror-clientgo mirror-ctrlruntime)
# dir is where a program is: its own directory here, except the mirror
# controller of examples/ (in the examples module, whose module graph is
# then the one of all the examples).
dir() { if [ "$1" = mirror ]; then echo ../../examples/mirror; else echo "$1"; fi; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }

rows=()
for p in "${programs[@]}"; do
	(
		cd "$(dir "$p")"
		go mod download # the module cache is not part of the clean build: downloads are not timed
		cache=$(mktemp -d)
		start=$(date +%s.%N)
		GOCACHE=$cache go build -o "$out/$p" .
		end=$(date +%s.%N)
		GOCACHE=$cache go build -ldflags='-s -w' -o "$out/$p-sw" .
		chmod -R u+w "$cache" && rm -rf "$cache"
		pkgs=$(go list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' . | wc -l)
		linked=$(go list -deps -f '{{with .Module}}{{.Path}}{{end}}' . | sort -u | wc -l)
		graph=$(go list -m all | wc -l)
		printf '| %s | %s | %s | %d | %d | %d | %.1f s |\n' "$p" \
			"$(mb "$(stat -c %s "$out/$p")")" "$(mb "$(stat -c %s "$out/$p-sw")")" \
			"$pkgs" "$linked" "$graph" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
	) >"$out/$p.row"
	rows+=("$(cat "$out/$p.row")")
	echo "measured $p" >&2
done

table=$(
	echo '| program | binary | binary -s -w | non-std packages | modules linked | modules in `go list -m all` | clean build |'
	echo '| --- | ---: | ---: | ---: | ---: | ---: | ---: |'
	printf '%s\n' "${rows[@]}"
)
echo "$table"

runlog=""
if [ -z "${NO_RUN:-}" ]; then
	# Start check: each program against a real kube-apiserver with one pod in it.
	set -a
	eval "$(/work/shared/kube-apiserver/start)"
	set +a
	trap '/work/shared/kube-apiserver/stop "$KUBE_APISERVER_DIR" >/dev/null 2>&1 || true; rm -rf "$out"' EXIT
	curl -sS --fail --cacert "$KUBE_CA_FILE" -H "Authorization: Bearer $KUBE_TOKEN" -H 'Content-Type: application/json' \
		-X POST "$KUBE_APISERVER_URL/api/v1/namespaces/default/pods" \
		-d '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"deps-check"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}' >/dev/null
	for p in "${programs[@]}"; do
		case $p in mirror*) continue ;; esac # started by examples/mirror's test, not here
		args=()
		[ "$p" = floor ] || args=(-duration 3s)
		set +e
		got=$(timeout 10 "$out/$p" "${args[@]}" 2>&1)
		rc=$?
		set -e
		if grep -qx 'add default/deps-check' <<<"$got" && [ "$rc" = 0 ]; then
			status=ok
		else
			status="FAILED (exit $rc)"
		fi
		runlog+=$(printf '%s: %s\n%s' "$p" "$status" "$(sed 's/^/    /' <<<"$got")")$'\n'
		echo "run $p: $status" >&2
	done
	/work/shared/kube-apiserver/stop "$KUBE_APISERVER_DIR" >/dev/null 2>&1 || true
fi

{
	echo '# Dependency weight: results'
	echo
	echo "Measured $(date -u +%Y-%m-%d) with $(go version) on $(uname -m), $(nproc) CPUs (load average $load at the start), by \`bench/deps/measure.sh\`."
	echo 'See README.md for the three programs and what each column means.'
	echo
	echo "$table"
	echo
	echo 'Commands, in each program'"'"'s directory (each is its own module):'
	echo
	echo '```sh'
	echo 'GOCACHE=$(mktemp -d) go build .                       # timed: clean build (module cache already filled)'
	echo "GOCACHE=same go build -ldflags='-s -w' .               # stripped size"
	echo "go list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' . | wc -l   # non-std packages"
	echo "go list -deps -f '{{with .Module}}{{.Path}}{{end}}' . | sort -u | wc -l   # modules linked (incl. the program's own)"
	echo 'go list -m all | wc -l                                 # module graph (incl. the program'"'"'s own)'
	echo '```'
	if [ -n "$runlog" ]; then
		echo
		echo 'Start check against kube-apiserver (one pod, `default/deps-check`, created beforehand; `timeout 10`):'
		echo
		echo '```'
		printf '%s' "$runlog"
		echo '```'
	fi
} >"$here/RESULTS.md"
