package cli

import (
	"path/filepath"
	"testing"

	"github.com/dstgo/dst/sched/schedtest"
)

// HaveDlv reports whether dstreplay debug finds delve, for tests to skip
// without it.
func HaveDlv() bool { _, ok := lookDlv(); return ok }

// SaveTrace writes the trace of res, a run recorded with Options.Record,
// in a directory of the test's, under name, and returns its path.
func SaveTrace(tb testing.TB, res *schedtest.Result, name string) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), name)
	if err := res.WriteTrace(path); err != nil {
		tb.Fatal(err)
	}
	return path
}
