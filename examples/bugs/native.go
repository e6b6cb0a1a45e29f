package bugs

import (
	"errors"
	"fmt"
	"runtime"
	"time"
)

// Helpers for the native twins: plain Go, real goroutines, real time.

// nativeTimeout is how long a native run may take before it counts as a
// hang (a deadlock or a goroutine blocked forever).
const nativeTimeout = 100 * time.Millisecond

// errHang says a native run did not finish in time.
var errHang = errors.New("did not finish: deadlock or blocked goroutine")

// runNative runs f in its own goroutine and reports a panic as an error and
// a run that takes longer than nativeTimeout as errHang. f's own error is
// returned as it is.
func runNative(f func() error) (err error) {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("panic: %v", p)
			}
		}()
		done <- f()
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(nativeTimeout):
		return errHang
	}
}

// waitLeaks waits until the number of goroutines drops to at most n, and
// reports the goroutines still running after nativeTimeout as a leak.
func waitLeaks(n int) error {
	deadline := time.Now().Add(nativeTimeout)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			return fmt.Errorf("leak: %d goroutines still running", runtime.NumGoroutine()-n)
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}
