package native_test

import (
	"os"
	"strings"
	"testing"

	"github.com/dstgo/dst/sched/native"
	"github.com/dstgo/dst/sched/schedtest"
)

// TestGivenFailsTheRun: handing a channel to code that is not rewritten,
// inside a run, is a misuse naming the channel, the function and the
// place; outside a run the channel passes through.
func TestGivenFailsTheRun(t *testing.T) {
	c := make(chan os.Signal, 1)
	if native.Given(c, "os/signal.Notify", "main.go:9") != c {
		t.Fatal("outside a run, Given returns its channel")
	}
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(*schedtest.T) {
		c := native.Make[chan os.Signal](1)
		native.Given(c, "os/signal.Notify", "main.go:9")
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "a chan os.Signal is given to os/signal.Notify at main.go:9, code that dstreplay test does not rewrite"
	if res.Failure == nil || res.Failure.Kind != schedtest.Misuse || !strings.Contains(res.Failure.Message, want) {
		t.Fatalf("got %v, want a misuse saying %q", res.Failure, want)
	}
}
