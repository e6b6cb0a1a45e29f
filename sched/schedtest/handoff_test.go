package schedtest_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/trace"
)

// digests runs busy for a few strategies and seeds with recording on and
// returns, per run, a digest of its decisions and of its written trace.
func digests(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, strategy := range []string{"random", "pct", "pos", "surw"} {
		for _, seed := range []uint64{1, 2, 0xfeed} {
			opts := schedtest.Options{Seed: seed, Strategy: strategy, Record: true, Faults: map[string]float64{"produce": 0.3}}
			res, err := schedtest.Run(opts, busy)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := trace.Write(&b, &trace.Header{Test: "busy"}, res.Trace, &trace.Outcome{Kind: "any"}); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(append([]byte(fingerprint(t, res)), b.Bytes()...))
			out = append(out, fmt.Sprintf("%s/%#x %x", strategy, seed, sum[:8]))
		}
	}
	return out
}

// TestChildDigests prints digests for TestHandoffsDecideAlike.
func TestChildDigests(t *testing.T) {
	if os.Getenv("DST_CHILD") != "digests" {
		t.Skip("run by TestHandoffsDecideAlike")
	}
	for _, d := range digests(t) {
		fmt.Println("digest", d)
	}
}

// Without -race managed goroutines hand over as coroutines, under -race
// through semaphores: the same seeds must give the same decisions and the
// same trace, byte for byte, either way (and at any GOMAXPROCS).
func TestHandoffsDecideAlike(t *testing.T) {
	if engine.RaceEnabled {
		t.Skip("runs from the build without -race, with a -race child")
	}
	if testing.Short() {
		t.Skip("builds the package's tests with -race")
	}
	want := digests(t)
	for _, c := range []struct{ name, procs string }{{"race", "2"}, {"race, GOMAXPROCS 1", "1"}} {
		cmd := exec.Command("go", "test", "-race", "-count=1", "-v", "-run=^TestChildDigests$", ".")
		cmd.Env = append(os.Environ(), "DST_CHILD=digests", "GOMAXPROCS="+c.procs, "DST_DIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, out)
		}
		var got []string
		for _, line := range strings.Split(string(out), "\n") {
			if d, ok := strings.CutPrefix(line, "digest "); ok {
				got = append(got, d)
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: the runs differ from this build's:\n got %q\nwant %q", c.name, got, want)
		}
	}
}
