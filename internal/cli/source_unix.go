//go:build unix

package cli

import "syscall"

// sourceOpenFlags open a source file without blocking (a FIFO) and without
// following a symlink in its last element.
const sourceOpenFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW
