package native_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/dstgo/dst/sched/native"
	"github.com/dstgo/dst/sched/schedtest"
)

// The code of these tests is not rewritten: a plain send, close or make in
// a body stands for a dependency that dstreplay test did not rewrite,
// running on a goroutine of the run.

// TestUnseenSendIsAMisuse: a goroutine of the run waits on a channel the
// run adopted, and code that is not rewritten sends on that channel (as a
// mock clock's Add does): the run cannot see the send, and what it would
// call a deadlock ("nothing can wake them") is reported as the misuse it
// is, naming the channel, where the run adopted it, and the flag that
// rewrites a dependency. The same test with the send rewritten passes.
func TestUnseenSendIsAMisuse(t *testing.T) {
	for _, tc := range []struct {
		name string
		act  func(c chan int)
		want string
	}{
		{"send", func(c chan int) { c <- 1 }, "a value sent on a chan int that the run adopted at unseen_test.go:"},
		{"close", func(c chan int) { close(c) }, "a close of a chan int that the run adopted at unseen_test.go:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := schedtest.Run(schedtest.Options{Iterations: 20}, func(*schedtest.T) {
				c := make(chan int, 1) // made by code that is not rewritten
				ready := native.Make[chan bool](0)
				native.Go1(func(c chan int) {
					native.Len(c) // the run adopts c
					native.To(ready).Send(true)
					native.Recv(c)
				}).Start(c)
				native.Recv(ready)
				tc.act(c) // not rewritten: the run does not see it
				native.Block()
			})
			if err != nil {
				t.Fatal(err)
			}
			f := res.Failure
			if f == nil || f.Kind != schedtest.Misuse || !strings.Contains(f.Message, tc.want) ||
				!strings.Contains(f.Message, "code that dstreplay test did not rewrite") ||
				!strings.Contains(f.Error(), "-rewrite=") {
				t.Fatalf("got %v, want a misuse saying %q, that code not rewritten did it, and the flag that rewrites it", f, tc.want)
			}
		})
	}

	res, err := schedtest.Run(schedtest.Options{Iterations: 20}, func(*schedtest.T) {
		c := make(chan int, 1)
		ready := native.Make[chan bool](0)
		native.Go1(func(c chan int) {
			native.Len(c)
			native.To(ready).Send(true)
			native.Recv(c)
		}).Start(c)
		native.Recv(ready)
		native.To(c).Send(1) // rewritten: the run sees it
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("the send rewritten: %v %v, want a pass", err, res.Failure)
	}
}

// TestUnseenSendOnAChannelOfTheRun: a channel made by the run, handed to
// code that is not rewritten which sends on it natively, is reported the
// same way; a channel the run closed itself is not.
func TestUnseenSendOnAChannelOfTheRun(t *testing.T) {
	res, err := schedtest.Run(schedtest.Options{Iterations: 5}, func(*schedtest.T) {
		closed := native.Make[chan int](0)
		native.Close(closed)
		c := native.Make[chan int](1)
		c <- 1 // not rewritten
		native.Block()
	})
	if err != nil {
		t.Fatal(err)
	}
	if f := res.Failure; f == nil || f.Kind != schedtest.Misuse || !strings.Contains(f.Message, "a value sent on a chan int that the run made") ||
		strings.Contains(f.Message, "a close of") {
		t.Fatalf("got %v, want a misuse for the value sent natively, and none for the channel the run closed", f)
	}
}

// TestUnseenAdviceNamesDependencies: the advice names the direct
// requirements of the module under test that the -rewrite patterns leave
// out, and the flag that rewrites them.
func TestUnseenAdviceNamesDependencies(t *testing.T) {
	dir := t.TempDir()
	gomod := `module example.com/m

go 1.22

require (
	example.com/clock v1.0.0
	example.com/pool v1.2.0 // indirect
	example.com/done v0.1.0
)

require example.com/single v1.0.0
`
	if err := os.WriteFile(dir+"/go.mod", []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("DST_REWRITTEN", "-wrap -rewrite=example.com/done/...")
	got := native.UnseenAdvice()
	for _, want := range []string{"example.com/clock, example.com/single", "-rewrite=example.com/clock/...,example.com/single/..."} {
		if !strings.Contains(got, want) {
			t.Errorf("advice %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "example.com/pool") || strings.Contains(got, "example.com/done,") {
		t.Errorf("advice %q names an indirect requirement, or one that is rewritten", got)
	}
}

// TestToolDeps: the modules the advice leaves out as the tool's own are
// those that the harness links into a test binary.
func TestToolDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}",
		"github.com/dstgo/dst/sched/schedtest", "github.com/dstgo/dst/sched/native/nativetest").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	var mods []string
	for _, m := range strings.Fields(string(out)) {
		if m != "github.com/dstgo/dst" && !slices.Contains(mods, m) {
			mods = append(mods, m)
		}
	}
	slices.Sort(mods)
	if got := native.ToolDeps(); !slices.Equal(got, mods) {
		t.Errorf("toolDeps = %v, want the harness's modules %v", got, mods)
	}
}
