#!/usr/bin/env bash
# Runs the whole test suite: formatting, vet, and the race-enabled tests of
# every module in the repository, with the integration tests against a real
# kube-apiserver + etcd when ../shared/kube-apiserver is beside the
# repository (it builds them once per machine, about 7 minutes on 2 cores,
# then caches them).
set -euo pipefail
cd "$(dirname "$0")"

modules=(bench examples typed/builtin .) # the root last: its results close the output

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

for m in "${modules[@]}"; do
  echo "== $m: go vet"
  (cd "$m" && go vet ./...)
done
for m in "${modules[@]}"; do
  echo "== $m: go test -race"
  (cd "$m" && go test -race -count=1 ./...)
done
