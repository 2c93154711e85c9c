#!/usr/bin/env bash
# Runs the whole test suite: formatting, vet, and the race-enabled tests of
# every module in the repository, with the integration tests against a real
# kube-apiserver + etcd when ../shared/kube-apiserver is beside the
# repository (it builds them once per machine, about 7 minutes on 2 cores,
# then caches them), and the interoperability suite (interop/) against gin
# and against FastAPI on uvicorn, whose Debian packages it installs once.
set -euo pipefail
cd "$(dirname "$0")"

modules=(bench examples typed/builtin interop metrics .) # the root last: its results close the output

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt -l lists:" >&2
  echo "$unformatted" >&2
  exit 1
fi

if [ -x ../shared/kube-apiserver/install ]; then
  echo "== kube-apiserver for the integration tests"
  ../shared/kube-apiserver/install
  export KUBE_INTEGRATION=1
else
  echo "== no ../shared/kube-apiserver: integration tests will skip"
fi

# interop/'s non-Go stack: Debian's FastAPI and uvicorn for /usr/bin/python3
# (about 15 s with apt-get update; a dpkg check of well under a second once
# installed). Its tests fail rather than skip under this script.
interop_debs=(python3-fastapi python3-uvicorn)
interop_installed() {
  local status
  status=$(dpkg-query -W -f='${Status}\n' "${interop_debs[@]}" 2>/dev/null) || return 1
  [ "$(grep -c '^install ok installed$' <<<"$status")" -eq "${#interop_debs[@]}" ]
}
if [ -n "${INTEROP_PYTHON:-}" ]; then
  : # an interpreter of the user's choosing, with FastAPI and uvicorn
elif ! command -v apt-get >/dev/null; then
  echo "== interop: no apt-get; set INTEROP_PYTHON to a python3 with FastAPI and uvicorn, or the interop tests fail" >&2
elif ! interop_installed; then
  echo "== interop: apt-get install ${interop_debs[*]}"
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo -n)
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${interop_debs[@]}" >/dev/null
fi
# Every informer of every test runs with the mutation detector, which
# panics at the first object changed after it was handed over (informer's
# Options.DetectMutations): handlers and tests must treat objects as
# read-only.
export INFORMER_MUTATION_DETECTOR=panic
export INTEROP_REQUIRE=1
export INTEROP_REPORT="$PWD/interop/report.txt"
rm -f "$INTEROP_REPORT"

for m in "${modules[@]}"; do
  echo "== $m: go vet"
  (cd "$m" && go vet ./...)
done
for m in "${modules[@]}"; do
  echo "== $m: go test -race"
  (cd "$m" && go test -race -count=1 ./...)
done
if [ -f "$INTEROP_REPORT" ]; then
  echo "== interop figures ($INTEROP_REPORT)"
  cat "$INTEROP_REPORT"
fi
