package engine

import (
	"syscall"
	"unsafe"
)

// exited reports whether the child process pid has exited, without reaping
// it (waitid with WNOWAIT): a later Wait still gets its status. A pid that
// is no child of this process (ECHILD: reaped already) counts as exited.
func exited(pid int) bool {
	const pPID = 1 // P_PID
	for {
		var info [16]uint64 // a siginfo_t; the kernel fills it only when pid has exited
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info)),
			syscall.WEXITED|syscall.WNOHANG|syscall.WNOWAIT, 0, 0)
		switch errno {
		case 0:
			return info[0] != 0 // si_signo is SIGCHLD once it has
		case syscall.EINTR:
			continue
		default:
			return true
		}
	}
}
