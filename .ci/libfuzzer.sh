#!/usr/bin/env bash
# The libFuzzer path end to end (issue 27), as OSS-Fuzz and ClusterFuzzLite
# build Go fuzz targets: examples/bank's FuzzBuggyBank (a schedtest.Fuzz
# target) is compiled with go-118-fuzz-build and linked with clang's
# libFuzzer, run for a bounded time until it crashes on the bug, and its
# crash input is replayed under go test with -dst.fuzzinput, which shrinks
# it and saves its trace, which dstreplay opens. FuzzFixedBank, built the
# same way, runs as long without a crash.
#
# go-118-fuzz-build edits the package it builds (it moves the fuzz target's
# file aside while it builds) and needs its testing package in go.mod: it
# runs in a copy of the checkout, whose go.mod alone gets the requirement.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

fuzzbuild=github.com/AdamKorcz/go-118-fuzz-build
version=v0.0.0-20250520111509-a70c2aa677fa
budget=${DST_LIBFUZZER_TIME:-120}

if ! command -v clang >/dev/null; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q clang >/dev/null
fi
clang --version | head -1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
GOBIN="$work/bin" go install "$fuzzbuild@$version"
mkdir "$work/src"
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$work/src"

build() { # build <fuzz target>: $work/<target>.fuzz
  (cd "$work/src" && "$work/bin/go-118-fuzz-build" -o "$work/$1.a" -func "$1" ./examples/bank)
  clang -fsanitize=fuzzer -o "$work/$1.fuzz" "$work/$1.a" -lpthread
}
(cd "$work/src" && go get "$fuzzbuild/testing@$version" >/dev/null 2>&1)

echo "-- FuzzBuggyBank under libFuzzer (at most ${budget}s)"
build FuzzBuggyBank
mkdir "$work/crashes"
if (cd "$work" && DST_DEMO=1 ./FuzzBuggyBank.fuzz -max_total_time="$budget" -artifact_prefix="$work/crashes/" >"$work/buggy.log" 2>&1); then
  tail -20 "$work/buggy.log"; echo "libFuzzer found no crash in FuzzBuggyBank"; exit 1
fi
crash=$(ls "$work"/crashes/crash-* 2>/dev/null | head -1)
[ -n "$crash" ] || { tail -20 "$work/buggy.log"; echo "libFuzzer wrote no crash input"; exit 1; }
grep -q "the input is the schedule" "$work/buggy.log" || { tail -40 "$work/buggy.log"; echo "the crash is not the scheduler's report"; exit 1; }
grep -m1 "^sched: " "$work/buggy.log"

echo "-- its crash input, replayed under go test into a trace"
if out=$(DST_DEMO=1 DST_DIR="$work/traces" go test -count=1 ./examples/bank -run '^FuzzBuggyBank$' -dst.fuzzinput="$crash" 2>&1); then
  echo "$out"; echo "the crash input did not fail under go test"; exit 1
fi
grep -q "trace saved as" <<< "$out" || { echo "$out"; echo "no trace saved"; exit 1; }
trace=$(find "$work/traces" -name '*.trace' | head -1)
summary=$(go run ./cmd/dstreplay summary "$trace") || { echo "$summary"; echo "dstreplay summary failed"; exit 1; }
grep -q "^outcome: " <<< "$summary" || { echo "$summary"; echo "no outcome"; exit 1; }
grep "^outcome: " <<< "$summary"

echo "-- FuzzFixedBank under libFuzzer (${budget}s: no crash)"
build FuzzFixedBank
if ! (cd "$work" && ./FuzzFixedBank.fuzz -max_total_time="$budget" -artifact_prefix="$work/crashes/fixed-" >"$work/fixed.log" 2>&1); then
  tail -40 "$work/fixed.log"; echo "FuzzFixedBank crashed"; exit 1
fi
grep -E "^Done [0-9]+ runs" "$work/fixed.log" || tail -3 "$work/fixed.log"
echo "ok"
