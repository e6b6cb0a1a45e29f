package simdisk_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/sched/schedtest"
)

// TestChildTestLog reads many environment variables inside a run, which
// go test's test log (-test.testlogfile) records in a file, through a
// bufio.Writer, under a lock.
func TestChildTestLog(t *testing.T) {
	if os.Getenv("DST_CHILD") != "testlog" {
		t.Skip("run by TestTestLog")
	}
	schedtest.TestWith(t, schedtest.Options{Iterations: 3}, func(st *schedtest.T) {
		for i := range 2000 {
			os.Getenv(fmt.Sprintf("DST_TESTLOG_%d", i))
		}
	})
}

// TestTestLog: the test log's writes are Go's own, not simdisk's. With
// package os's hooks, they came here under the test log's lock, and a
// write of simdisk's that read the environment (os.TempDir) took that lock
// again: x/sync's singleflight suite hung until go test killed it.
func TestTestLog(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	log := filepath.Join(t.TempDir(), "testlog.txt")
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildTestLog$", "-test.v", "-test.timeout=60s", "-test.testlogfile="+log)
	cmd.Env = append(os.Environ(), "DST_CHILD=testlog", "DST_DIR=off")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestChildTestLog") {
		t.Fatalf("after %v: %v\n%s", time.Since(start).Round(time.Millisecond), err, firstLines(string(out), 40))
	}
	if b, _ := os.ReadFile(log); !strings.Contains(string(b), "getenv DST_TESTLOG_1999") {
		t.Errorf("the test log lacks the last variable read:\n%s", firstLines(string(b), 5))
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "")
}
