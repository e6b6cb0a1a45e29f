package bugs

import (
	"flag"
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	flag.Parse()
	if *report {
		// The native twins of deadlocks leave their goroutines blocked
		// forever: that is what they measure.
		os.Exit(m.Run())
	}
	goleak.VerifyTestMain(m)
}
