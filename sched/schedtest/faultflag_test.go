package schedtest_test

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simnet"
	"github.com/dstgo/dst/trace"
	"github.com/dstgo/dst/vtime"
)

// TestChildFaultFlag fails when a byte it sends over the simulated
// network arrives late, saying how late.
func TestChildFaultFlag(t *testing.T) {
	if os.Getenv("DST_CHILD") != "faults" {
		t.Skip("run by TestFaultsFlag")
	}
	schedtest.TestWith(t, schedtest.Options{Iterations: 20}, func(t *schedtest.T) {
		l, err := simnet.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		c, err := simnet.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		s, _ := l.Accept()
		start := vtime.Now()
		c.Write([]byte("x"))
		c.Close()
		io.ReadAll(s)
		if d := vtime.Since(start); d > 0 {
			t.Fatalf("the byte arrived %v late", d)
		}
	})
}

// TestFaultsFlag: -dst.faults turns fault points on for a test that sets
// none, with their bounds; the reproduce line keeps it, and the saved
// trace records it, so that it replays the same faults without the flag.
// A wrong value is an error that names it.
func TestFaultsFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	if out, err := child(t, ".", "faults", os.Args[0], "-test.run=^TestChildFaultFlag$"); err != nil {
		t.Fatalf("without the flag no fault fires, but the child failed:\n%s", out)
	}
	saved := t.TempDir()
	flag := "-dst.faults=net.delay=1:3ms, net.reset=0"
	out, err := childSaving(t, saved, ".", "faults", os.Args[0], "-test.run=^TestChildFaultFlag$", flag)
	late := regexp.MustCompile(`the byte arrived (\S+) late`).FindStringSubmatch(out)
	if err == nil || late == nil {
		t.Fatalf("with %s the child should fail:\n%s", flag, out)
	}
	if !strings.Contains(out, "net.delay (step") {
		t.Errorf("the report does not name the fault:\n%s", out)
	}
	if !strings.Contains(out, "'"+flag+"'") {
		t.Errorf("the reproduce line drops %s:\n%s", flag, out)
	}
	path := savedTrace(t, saved)
	r, err := trace.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	opts := r.Header.Options
	r.Close()
	for _, want := range []string{"fault.net.delay=1", "faultbound.net.delay=3ms"} {
		if !slices.Contains(opts, want) {
			t.Errorf("the saved trace's options %q lack %s", opts, want)
		}
	}
	// The saved failure replays first, without the flag, and the same.
	out, err = childSaving(t, saved, ".", "faults", os.Args[0], "-test.run=^TestChildFaultFlag$")
	if err == nil || !strings.Contains(out, "(a saved failure") || !strings.Contains(out, fmt.Sprintf("the byte arrived %s late", late[1])) {
		t.Errorf("the saved failure did not replay the same (%s late):\n%s", late[1], out)
	}
	for _, bad := range []struct{ flag, want string }{
		{"-dst.faults=net.delay", `"net.delay": want name=probability`},
		{"-dst.faults=net.delay=2", `the probability "2" is not a number in [0, 1]`},
		{"-dst.faults=net.delay=0.5:soon", `the bound "soon" is not a positive duration`},
		{"-dst.faults=", "want at least one name=probability"},
	} {
		out, err := child(t, ".", "faults", os.Args[0], "-test.run=^TestChildFaultFlag$", bad.flag)
		if err == nil || !strings.Contains(out, "sched: "+bad.flag+": ") || !strings.Contains(out, bad.want) {
			t.Errorf("%s: want an error saying %s:\n%s", bad.flag, bad.want, out)
		}
	}
}
