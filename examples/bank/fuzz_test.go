package bank

import (
	"os"
	"testing"

	"github.com/dstgo/dst/sched/schedtest"
)

// The workload as fuzz targets: each input is a schedule. go test -fuzz
// mutates them, and so does libFuzzer when the target is built with
// go-118-fuzz-build (as OSS-Fuzz and ClusterFuzzLite build Go targets; the
// README's "Past one machine"). They are in the package's own test files,
// not bank_test's: go-118-fuzz-build compiles the target's file as a file
// of the package.

// FuzzBuggyBank runs only when asked, as the demos do:
//
//	DST_DEMO=1 go test ./examples/bank -run '^$' -fuzz '^FuzzBuggyBank$' -fuzztime 30s
func FuzzBuggyBank(f *testing.F) {
	if os.Getenv("DST_DEMO") != "1" {
		f.Skip("the buggy bank: run with DST_DEMO=1")
	}
	schedtest.Fuzz(f, Workload(false))
}

// FuzzFixedBank's schedules all pass.
func FuzzFixedBank(f *testing.F) { schedtest.Fuzz(f, Workload(true)) }
