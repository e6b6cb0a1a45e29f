package testutil

import (
	"flag"
	"os"
	"testing"
)

// Demo skips t, a demo test that fails on purpose, unless DST_DEMO is set
// or the command line asks for one of its schedules: a reproduce line's
// -dst.seed, -dst.replay or -dst.input, or the -dst.trace that a saved
// failure's replay line, dstreplay exec and dstreplay debug pass. A demo
// whose reproduce line skipped would pass instead of reproducing.
func Demo(t *testing.T) {
	t.Helper()
	if os.Getenv("DST_DEMO") != "" {
		return
	}
	asked := false
	flag.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "dst.seed", "dst.replay", "dst.input", "dst.trace":
			asked = true
		}
	})
	if !asked {
		t.Skip("the demo fails on purpose; run it with DST_DEMO=1")
	}
}
