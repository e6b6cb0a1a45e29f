package nativetest

import (
	"flag"
	"testing"
	"time"

	"github.com/dstgo/dst/sched/schedtest"
)

// A wrapped test's virtual timeout is go test's -timeout, and in a child
// process the harness started (to run a failure alone, or to report a race)
// the parent's, which the child's environment carries: its own -timeout is
// only its bound.
func TestTimeoutOfWrappedTests(t *testing.T) {
	t.Setenv(schedtest.TestTimeoutEnv, "")
	if got, want := testTimeout(), flag.Lookup("test.timeout").Value.(flag.Getter).Get().(time.Duration); got != want {
		t.Errorf("without the variable: %v, want -test.timeout's %v", got, want)
	}
	t.Setenv(schedtest.TestTimeoutEnv, "7m0s")
	if got := testTimeout(); got != 7*time.Minute {
		t.Errorf("in a child: %v, want the parent's 7m0s", got)
	}
	t.Setenv(schedtest.TestTimeoutEnv, "0s")
	if got := testTimeout(); got != 0 {
		t.Errorf("in a child of a process without a timeout: %v, want none", got)
	}
}
