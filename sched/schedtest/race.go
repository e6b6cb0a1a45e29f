package schedtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/gotest"
)

// raceInChild hands a data race over to a child process of the test
// binary: this process's race detector reports each race once, so the
// schedule that raced would not race again here, and shrinking, source
// locations and the saved trace need it to. The child runs the one
// schedule with a GORACE that reports every race (engine.RaceEnv), and
// reports it as any failure; its report is returned, or ok is false when
// the child did not report the race.
func raceInChild(t *testing.T, o Options, x exploration) (report string, ok bool) {
	dir, err := os.MkdirTemp("", "dst-race-")
	if err != nil {
		return "", false
	}
	defer os.RemoveAll(dir)
	args := []string{"-test.run=" + gotest.RunPattern(t.Name()), "-test.count=1"}
	args = append(args, x.drawn().Flags()...)
	if o.MaxSteps != engine.DefaultMaxSteps {
		args = append(args, "-dst.maxsteps="+strconv.Itoa(o.MaxSteps))
	}
	if o.noShrink {
		args = append(args, "-dst.shrink=false")
	}
	if flags.dir != "" {
		args = append(args, "-dst.dir="+flags.dir)
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "GORACE="+engine.RaceEnv(filepath.Join(dir, "race")))
	out, _ := cmd.CombinedOutput()
	return childReport(string(out))
}

// childReport takes the scheduler's report of a data race out of a child
// test binary's output, without go test's indentation.
func childReport(out string) (string, bool) {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		j := strings.Index(l, "sched: "+string(DataRace)+" in schedule ")
		if j < 0 {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " ")) + 4
		var b strings.Builder
		b.WriteString(l[j:])
		for _, l := range lines[i+1:] {
			if strings.TrimSpace(l) != "" && len(l)-len(strings.TrimLeft(l, " ")) < indent {
				break // go test's next line: FAIL, --- FAIL, another test's output
			}
			b.WriteString("\n")
			if len(l) >= indent {
				b.WriteString(l[indent:])
			}
		}
		return strings.TrimRight(b.String(), "\n") + "\n", true
	}
	return "", false
}
