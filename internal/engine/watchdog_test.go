package engine

import "testing"

// TestUnrewrittenDependency: the watchdog's report names, for a goroutine
// blocked outside the scheduler in a dependency from the module cache that
// dstreplay test did not rewrite, that package and the -rewrite flag that
// puts it on the scheduler; not otherwise.
func TestUnrewrittenDependency(t *testing.T) {
	stack := func(state, file string) string {
		return "goroutine 7 [" + state + "]:\n" +
			"runtime.chansend1(0xc000010000, 0x0)\n\t/usr/local/go/src/runtime/chan.go:161 +0x1d\n" +
			"example.com/dep/queue.(*Q).Put(...)\n\t" + file + ":10 +0x25\n" +
			"example.com/mine.TestX.func1()\n\t/home/u/mine/x_test.go:12 +0x1d\n" +
			"created by example.com/mine.TestX in goroutine 6\n\t/home/u/mine/x_test.go:11 +0x2a\n"
	}
	dep := "/home/u/go/pkg/mod/example.com/dep@v1.2.0/queue/queue.go"
	for _, tc := range []struct {
		marker, stack, want string
		all                 bool
	}{
		{"-wrap -rewrite=...", stack("chan send", dep), "example.com/dep/queue", true}, // refused by the rewrite
		{"-wrap -rewrite=...,example.com/dep/...", stack("chan send", dep), "", false},
		{"-wrap -rewrite=none", stack("chan send", dep), "example.com/dep/queue", false},
		{"-wrap", stack("chan send", dep), "example.com/dep/queue", false},
		{"1", stack("chan send", dep), "example.com/dep/queue", false},
		{"", stack("chan send", dep), "", false},                                   // not rewritten at all: no advice about -rewrite
		{"-wrap -rewrite=example.com/dep/...", stack("chan send", dep), "", false}, // rewritten already
		{"-wrap -rewrite=example.com/other,example.com/dep/queue", stack("chan send", dep), "", false},
		{"-wrap -rewrite=example.com/de/...", stack("chan send", dep), "example.com/dep/queue", false},
		{"-wrap", stack("running", dep), "", false},
		{"-wrap -rewrite=...", stack("IO wait", dep), "", false},            // I/O: rewritten code waits there too
		{"-wrap -rewrite=...", stack("syscall, 2 minutes", dep), "", false}, // spinning, not blocked
		{"-wrap", stack("chan send", "/home/u/mine/queue.go"), "", false},   // the user's own code
	} {
		t.Setenv("DST_REWRITTEN", tc.marker)
		if got, all := unrewrittenDependency(tc.stack); got != tc.want || all != tc.all {
			t.Errorf("marker %q, stack\n%s: got %q, %v, want %q, %v", tc.marker, tc.stack, got, all, tc.want, tc.all)
		}
	}
}
