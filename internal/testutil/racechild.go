package testutil

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/sched/schedtest"
)

// RaceChild is the child test RaceChildren runs: the body of bodies that
// DST_CHILD names, explored with opts; it skips when DST_CHILD names none.
func RaceChild(t *testing.T, opts schedtest.Options, bodies map[string]func(*schedtest.T)) {
	body, ok := bodies[os.Getenv("DST_CHILD")]
	if !ok {
		t.Skip("run by RaceChildren")
	}
	schedtest.TestWith(t, opts, body)
}

// RaceChildren runs the test binary's test child (a RaceChild) once per
// mode of want, under -race, and fails t unless a data race is reported in
// exactly the modes want marks, and the child fails with it.
func RaceChildren(t *testing.T, child string, want map[string]bool) {
	t.Helper()
	if !engine.RaceEnabled {
		t.Skip("needs -race")
	}
	for mode, wantRace := range want {
		cmd := exec.Command(os.Args[0], "-test.run=^"+child+"$", "-test.v")
		cmd.Env = append(os.Environ(), "DST_CHILD="+mode, "DST_DIR=off")
		out, err := cmd.CombinedOutput()
		raced := strings.Contains(string(out), "sched: data race in schedule")
		if raced != wantRace || wantRace == (err == nil) {
			t.Errorf("%s: race reported %v, want %v (%v):\n%s", mode, raced, wantRace, err, out)
		}
	}
}
