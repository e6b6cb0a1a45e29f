package chans_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// lineOf returns "report_test.go:N" for the line of this file that holds
// the comment marker.
func lineOf(t *testing.T, marker string) string {
	t.Helper()
	src, err := os.ReadFile("report_test.go")
	if err != nil {
		t.Fatal(err)
	}
	found := ""
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasSuffix(l, "// "+marker) {
			if found != "" {
				t.Fatalf("marker %q appears twice", marker)
			}
			found = fmt.Sprintf("report_test.go:%d", i+1)
		}
	}
	if found == "" {
		t.Fatalf("marker %q not found", marker)
	}
	return found
}

// failOnce runs body with a fixed seed and returns its failure.
func failOnce(t *testing.T, kind schedtest.FailureKind, body func(*schedtest.T)) *schedtest.Failure {
	t.Helper()
	res, err := schedtest.Run(schedtest.Options{Seed: seed}, body)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil {
		t.Fatalf("run passed; want %s", kind)
	}
	if res.Failure.Kind != kind {
		t.Fatalf("failure %q, want %q:\n%s", res.Failure.Kind, kind, res.Failure.Error())
	}
	return res.Failure
}

func wantInReport(t *testing.T, f *schedtest.Failure, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(f.Error(), w) {
			t.Errorf("report lacks %q:\n%s", w, f.Error())
		}
	}
}

// Goroutines blocked on channels appear in a leak report with the channel's
// element type, the operation, and the line where they blocked.
func TestReportLeakedGoroutines(t *testing.T) {
	f := failOnce(t, schedtest.Leak, func(t *schedtest.T) {
		strs := chans.Make[string](1)
		type point struct{ x, y int }
		pts := chans.Make[point](0)
		bools := chans.Make[bool](0)
		var nilc *chans.Chan[float64]
		sched.Go(func() {
			pts.Send(point{}) // report:send
		})
		sched.Go(func() {
			chans.Select(strs.CaseRecv(nil), bools.CaseSend(true)) // report:select
		})
		sched.Go(func() {
			nilc.Send(1) // report:nilsend
		})
		sched.Go(func() {
			nilc.RecvOK() // report:nilrecvok
		})
		sched.Go(func() {
			v, ok := strs.RecvOK() // report:recvok
			_, _ = v, ok
		})
	})
	if !strings.HasPrefix(f.Error(), "leak: the test body returned but 5 goroutine(s) are blocked forever") {
		t.Errorf("report does not start as a leak of 5 goroutines:\n%s", f.Error())
	}
	wantInReport(t, f,
		"chan chans_test.point#2.Send\n      at "+lineOf(t, "report:send"),
		"nil chan.Send\n      at "+lineOf(t, "report:nilsend"),
		"nil chan.Recv\n      at "+lineOf(t, "report:nilrecvok"),
		"chan string#1.Recv\n      at "+lineOf(t, "report:recvok"),
		"started by goroutine 1 at report_test.go:",
	)
	// A blocked select names every channel it waits on.
	wantSelect(t, f, []string{"chan string#1", "chan bool#3"}, lineOf(t, "report:select"))
}

// Regression (found in review, fixed): a goroutine blocked in Recv is reported at chan.go, inside the shim
// ("at chan.go:165 (chans.(*Chan[...]).Recv)"), not at the caller's line,
// whenever Recv is inlined into its caller: the engine records the PC of the
// first frame outside the tool (callerPC), but that PC lies in the inlined
// body of Recv, and locate resolves it to the innermost inlined frame,
// which is the shim's. RecvOK, Send and Select, which are not inlined, are
// reported at the caller's line. Go's own traceback, and the report for
// every other operation, name the caller's line.
func TestReportRecvLocation(t *testing.T) {
	f := failOnce(t, schedtest.Leak, func(t *schedtest.T) {
		ints := chans.Make[int](0)
		var nilc *chans.Chan[int]
		sched.Go(func() {
			ints.Recv() // report:recv
		})
		sched.Go(func() {
			nilc.Recv() // report:nilrecv
		})
	})
	wantInReport(t, f,
		"chan int#1.Recv\n      at "+lineOf(t, "report:recv"),
		"nil chan.Recv\n      at "+lineOf(t, "report:nilrecv"))

	f = failOnce(t, schedtest.Deadlock, func(t *schedtest.T) {
		c := chans.Make[int](0)
		c.Recv() // report:body-recv
	})
	wantInReport(t, f, "goroutine 1 (test body): blocked in chan int#1.Recv\n      at "+lineOf(t, "report:body-recv"))
}

// Regression (found in review, fixed): a goroutine blocked in `for v := range c.All()` is reported one line
// too early (the line before the for statement: in a goroutine, the line of
// its sched.Go call; in the body, the line that made the channel) instead of
// at the for statement, as Go's traceback of a goroutine blocked in
// `for v := range ch` would.
func TestReportRangeLocation(t *testing.T) {
	f := failOnce(t, schedtest.Leak, func(t *schedtest.T) {
		ints := chans.Make[int](0)
		sched.Go(func() {
			for range ints.All() { // report:range
			}
		})
	})
	wantInReport(t, f, "chan int#1.Recv\n      at "+lineOf(t, "report:range"))

	f = failOnce(t, schedtest.Deadlock, func(t *schedtest.T) {
		c := chans.Make[int](0)
		for range c.All() { // report:body-range
		}
	})
	wantInReport(t, f, "goroutine 1 (test body): blocked in chan int#1.Recv\n      at "+lineOf(t, "report:body-range"))
}

// wantSelect asserts that the report has a goroutine blocked in a select
// that names every channel of chans, at the given line.
func wantSelect(t *testing.T, f *schedtest.Failure, chans []string, at string) {
	t.Helper()
	re := regexp.MustCompile(`blocked in ([^\n]*)\n      at ` + regexp.QuoteMeta(at) + ` `)
	m := re.FindStringSubmatch(f.Error())
	if m == nil {
		t.Errorf("report has no goroutine blocked at %s:\n%s", at, f.Error())
		return
	}
	if !strings.Contains(strings.ToLower(m[1]), "select") {
		t.Errorf("goroutine at %s is blocked in %q, not a select", at, m[1])
	}
	for _, c := range chans {
		if !strings.Contains(m[1], c) {
			t.Errorf("select at %s is reported as %q, which does not name %s", at, m[1], c)
		}
	}
}

// The test body blocked on a channel appears in the deadlock report with the
// line where it blocked.
func TestReportDeadlockedBody(t *testing.T) {
	cases := []struct {
		name, marker, want string
		body               func(*schedtest.T)
	}{
		{"RecvOK", "report:body-recvok", "chan int#1.Recv", func(t *schedtest.T) {
			c := chans.Make[int](0)
			c.RecvOK() // report:body-recvok
		}},
		{"Send", "report:body-send", "chan []uint8#1.Send", func(t *schedtest.T) {
			c := chans.Make[[]byte](0)
			c.Send(nil) // report:body-send
		}},
		{"nil Send", "report:body-nilsend", "nil chan.Send", func(t *schedtest.T) {
			var c *chans.Chan[int]
			c.Send(0) // report:body-nilsend
		}},
		{"Select", "report:body-select", "", func(t *schedtest.T) {
			a, b := chans.Make[int](0), chans.Make[bool](0)
			chans.Select(a.CaseRecv(nil), b.CaseSend(true)) // report:body-select
		}},
		{"empty Select", "report:body-empty", "", func(t *schedtest.T) {
			chans.Select() // report:body-empty
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := failOnce(t, schedtest.Deadlock, tc.body)
			wantInReport(t, f, "all goroutines are asleep")
			if tc.want == "" { // a select
				var names []string
				if tc.name == "Select" {
					names = []string{"chan int#1", "chan bool#2"}
				}
				wantSelect(t, f, names, lineOf(t, tc.marker))
				return
			}
			wantInReport(t, f, "goroutine 1 (test body): blocked in "+tc.want+"\n      at "+lineOf(t, tc.marker))
		})
	}
}

// A deadlock between two goroutines on two channels names both.
func TestReportTwoWayDeadlock(t *testing.T) {
	f := failOnce(t, schedtest.Deadlock, func(t *schedtest.T) {
		a, b := chans.Make[int](0), chans.Make[int](0)
		done := chans.Make[struct{}](0)
		sched.Go(func() {
			a.Send(1) // report:ab
			b.Recv()
			done.Close()
		})
		sched.Go(func() {
			b.Send(1) // report:ba
			a.Recv()
			done.Close()
		})
		done.Recv() // both senders are stuck
	})
	wantInReport(t, f, "chan int#1.Send\n      at "+lineOf(t, "report:ab"), "chan int#2.Send\n      at "+lineOf(t, "report:ba"),
		"chan struct {}#3.Recv")
}

// A channel made outside a run and used inside one fails the run as misuse.
func TestMisuseNativeChannelInRun(t *testing.T) {
	cases := []struct {
		name string
		op   func(c *chans.Chan[int])
		want string
	}{
		{"Send", func(c *chans.Chan[int]) { c.Send(1) }, "Send on a channel made outside the run"},
		{"Recv", func(c *chans.Chan[int]) { c.Recv() }, "Recv on a channel made outside the run"},
		{"RecvOK", func(c *chans.Chan[int]) { c.RecvOK() }, "Recv on a channel made outside the run"},
		{"Close", func(c *chans.Chan[int]) { c.Close() }, "Close on a channel made outside the run"},
		{"Len", func(c *chans.Chan[int]) { c.Len() }, "Len on a channel made outside the run"},
		{"All", func(c *chans.Chan[int]) {
			for range c.All() {
			}
		}, "Recv on a channel made outside the run"},
		{"Select recv", func(c *chans.Chan[int]) { chans.Select(c.CaseRecv(nil), chans.Default()) }, "Select on a channel made outside the run"},
		{"Select send", func(c *chans.Chan[int]) { chans.Select(c.CaseSend(1), chans.Default()) }, "Select on a channel made outside the run"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			native := chans.Make[int](1) // outside the run
			native.Send(3)
			f := failOnce(t, schedtest.Misuse, func(t *schedtest.T) {
				sched.Go(func() { tc.op(native) })
			})
			wantInReport(t, f, "misuse: chans: "+tc.want)
			// The native channel is untouched.
			if native.Len() != 1 {
				t.Errorf("native channel Len = %d after the failed run, want 1", native.Len())
			}
		})
	}
}

// A channel of a run in progress used by another run fails the second as
// misuse, as any object of the scheduler does.
//
// Regression (found in review, fixed): the doc of package sched says an object of one run
// touched from another run is Misuse, and sched.Mutex reports "belongs to
// another run in progress"; a channel's operations only call g.Point on its
// Obj, which does not check the run, so the second run silently operates on
// the first run's channel (its queues and buffer), corrupting both runs.
func TestMisuseChannelOfAnotherRun(t *testing.T) {
	var shared *chans.Chan[int]
	inA, releaseA := make(chan struct{}), make(chan struct{})
	doneA := make(chan *schedtest.Result)
	go func() {
		res, _ := schedtest.Run(schedtest.Options{Seed: seed}, func(t *schedtest.T) {
			shared = chans.Make[int](1)
			close(inA)
			<-releaseA
		})
		doneA <- res
	}()
	<-inA
	res, err := schedtest.Run(schedtest.Options{Seed: seed}, func(t *schedtest.T) { shared.Send(1) })
	close(releaseA)
	resA := <-doneA
	if err != nil {
		t.Fatal(err)
	}
	if resA.Failure != nil {
		t.Errorf("run A failed: %s", resA.Failure.Error())
	}
	if res.Failure == nil || res.Failure.Kind != schedtest.Misuse {
		t.Errorf("a run sending on another run's channel: %v; want a misuse failure", res.Failure)
	}
}

// Outside any run, a channel of a run that has ended panics.
func TestChannelOfEndedRunOutside(t *testing.T) {
	var leftover *chans.Chan[int]
	res, err := schedtest.Run(schedtest.Options{Seed: seed}, func(t *schedtest.T) {
		leftover = chans.Make[int](1)
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("run: %v %v", err, res.Failure)
	}
	for name, op := range map[string]func(){
		"Send":  func() { leftover.Send(1) },
		"Recv":  func() { leftover.Recv() },
		"Close": func() { leftover.Close() },
		"Len":   func() { leftover.Len() },
	} {
		msg, _, ok := panicOf(op)
		if !ok || !strings.Contains(msg, "made inside a run that has ended") {
			t.Errorf("%s outside a run on a channel of an ended run: panic %q (panicked: %v)", name, msg, ok)
		}
	}
}

// Regression (found in review, fixed): Select outside a run on a channel made inside a run does not panic as
// Send, Recv, Close and Len do ("... on a channel made inside a run that has
// ended"): selectNative builds its reflect.SelectCase from the channel's
// native field, which is nil for a run's channel, so the case is silently
// treated as a nil channel: with a default the select takes the default, and
// without one it would block forever.
func TestSelectOnChannelOfEndedRunOutside(t *testing.T) {
	var leftover *chans.Chan[int]
	res, err := schedtest.Run(schedtest.Options{Seed: seed}, func(t *schedtest.T) {
		leftover = chans.Make[int](1)
		leftover.Send(5) // a value is ready
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("run: %v %v", err, res.Failure)
	}
	msg, _, ok := panicOf(func() { chans.Select(leftover.CaseRecv(nil), chans.Default()) })
	if !ok || !strings.Contains(msg, "made inside a run that has ended") {
		t.Errorf("Select outside a run on a channel of an ended run: panic %q (panicked: %v); want the panic Recv gives", msg, ok)
	}
}

// A plain goroutine touching a run's channel while the run is in progress
// fails the run as misuse.
func TestMisuseRunChannelFromPlainGoroutine(t *testing.T) {
	for _, tc := range []struct {
		name string
		op   func(c *chans.Chan[int])
	}{
		{"Send", func(c *chans.Chan[int]) { c.Send(1) }},
		{"Recv", func(c *chans.Chan[int]) { c.Recv() }},
		// Regression (found in review, fixed): Select from a plain goroutine on a channel of a run in
		// progress is not detected (no CheckNative in selectNative): the
		// case is treated as a nil channel and the default fires, where
		// Send and Recv fail the run as misuse.
		{"Select", func(c *chans.Chan[int]) { chans.Select(c.CaseRecv(nil), chans.Default()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got any
			res, err := schedtest.Run(schedtest.Options{Seed: seed}, func(t *schedtest.T) {
				c := chans.Make[int](1)
				c.Send(1)
				done := make(chan struct{})
				go func() {
					defer close(done)
					defer func() { got = recover() }()
					tc.op(c)
				}()
				<-done
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Failure == nil || res.Failure.Kind != schedtest.Misuse {
				t.Errorf("failure %v, want misuse (the plain goroutine's panic: %v)", res.Failure, got)
			}
		})
	}
}
