package engine

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/petermattis/goid"
)

// TestNativeBlocked: the watchdog tells a goroutine blocked outside the
// scheduler (which lets time pass) from one that computes, one whose
// thread waits for the machine, and one the scheduler parked.
func TestNativeBlocked(t *testing.T) {
	for _, c := range []struct {
		name, stack string
		want        bool
	}{
		{"child process", "goroutine 7 [syscall]:\nsyscall.Syscall6(0xf7, 0x1, 0x4d2)\n\t/go/src/syscall/syscall_linux.go:95 +0x39\n" +
			"os.(*Process).pidfdWait(0xc000012345)\n\t/go/src/os/pidfd_linux.go:110 +0xd6\n" +
			"os/exec.(*Cmd).Wait(0xc000100000)\n\t/go/src/os/exec/exec.go:922 +0x45\n" +
			"example.com/m.TestX.func1()\n\t/m/x_test.go:12 +0x25\n", true},
		{"long system call", "goroutine 7 [syscall, 2 minutes]:\nsyscall.Syscall(0x0, 0x3)\n\t/go/src/syscall/syscall_linux.go:73 +0x25\n" +
			"example.com/m.read()\n\t/m/m.go:3 +0x1\n", true},
		{"native channel", "goroutine 9 [chan receive]:\nruntime.gopark(0x0)\n\t/go/src/runtime/proc.go:435 +0xce\n" +
			"runtime.chanrecv1(0xc00001c0c0, 0x0)\n\t/go/src/runtime/chan.go:509 +0x12\n" +
			"example.com/dep.(*Clock).Wait(...)\n\t/dep/clock.go:40\n", true},
		{"computing", "goroutine 9 [running]:\nexample.com/m.hash()\n\t/m/m.go:3 +0x1\n", false},
		{"waiting for a thread", "goroutine 9 [runnable]:\nexample.com/m.hash()\n\t/m/m.go:3 +0x1\n", false},
		{"parked by the scheduler", "goroutine 9 [semacquire]:\nsync.runtime_Semacquire(0xc0000a0000)\n\t/go/src/runtime/sema.go:71 +0x25\n" +
			"github.com/dstgo/dst/internal/engine.semacquire(...)\n\t/dst/internal/engine/sema.go:30\n" +
			"github.com/dstgo/dst/internal/engine.(*Run).park(0xc000100000, 0xc000200000)\n\t/dst/internal/engine/sema.go:40 +0x45\n" +
			"example.com/m.f()\n\t/m/m.go:3 +0x1\n", false},
		{"no header", "", false},
	} {
		if got := nativeBlocked(c.stack); got != c.want {
			t.Errorf("%s: nativeBlocked = %v, want %v", c.name, got, c.want)
		}
	}

	// A live goroutine, first computing, then reading a pipe.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	id, spin, done := make(chan int64), make(chan bool), make(chan struct{})
	go func() {
		defer close(done)
		id <- goid.Get()
		for <-spin {
		}
		r.Read(make([]byte, 1))
	}()
	g := <-id
	spin <- true
	if nativeBlocked(goroutineStack(g)) {
		t.Errorf("a goroutine that receives from the test's channel, in package engine, counts as blocked natively")
	}
	spin <- false // it reads the pipe next
	deadline := time.Now().Add(10 * time.Second)
	for !nativeBlocked(goroutineStack(g)) {
		if time.Now().After(deadline) {
			t.Fatalf("a goroutine reading a pipe is not blocked:\n%s", goroutineStack(g))
		}
		runtime.Gosched()
	}
	w.Write([]byte{1})
	<-done
}
