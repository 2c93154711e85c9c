#!/usr/bin/env bash
# Runs the whole test suite: formatting, vet, and the race-enabled tests of
# every module in the repository.
set -euo pipefail
cd "$(dirname "$0")"

modules=(. examples)

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt -l lists:" >&2
  echo "$unformatted" >&2
  exit 1
fi

for m in "${modules[@]}"; do
  echo "== $m: go vet"
  (cd "$m" && go vet ./...)
done
for m in "${modules[@]}"; do
  echo "== $m: go test -race"
  (cd "$m" && go test -race -count=1 ./...)
done
