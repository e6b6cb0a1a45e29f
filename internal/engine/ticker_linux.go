package engine

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

// fdTicker is a timerfd read through the netpoller: the goroutine waiting on
// it holds no P and leaves no runtime timer pending.
type fdTicker struct{ f *os.File }

func newTicker(d time.Duration) ticker {
	const (
		clockMonotonic = 1
		tfdNonblock    = 0x800
		tfdCloexec     = 0x80000
	)
	fd, _, errno := syscall.Syscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, tfdNonblock|tfdCloexec, 0)
	if errno != 0 {
		return timeTicker{time.NewTicker(d)}
	}
	ts := syscall.NsecToTimespec(d.Nanoseconds())
	spec := [2]syscall.Timespec{ts, ts} // interval, first expiry
	if _, _, errno := syscall.Syscall6(syscall.SYS_TIMERFD_SETTIME, fd, 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0); errno != 0 {
		syscall.Close(int(fd))
		return timeTicker{time.NewTicker(d)}
	}
	return fdTicker{os.NewFile(fd, "sched-watchdog-timerfd")}
}

func (t fdTicker) wait() {
	var b [8]byte // the number of expirations, which the watchdog does not need
	if _, err := t.f.Read(b[:]); err != nil {
		time.Sleep(watchPeriod) // never expected; keeps the loop from spinning
	}
}

func (t fdTicker) stop() { t.f.Close() }
