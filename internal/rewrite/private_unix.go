//go:build unix

package rewrite

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// notPrivate says why others than the current user could change what fi
// describes: it is not the user's (foreign), or its group or others may
// write it; "" when only the user can.
func notPrivate(fi fs.FileInfo) (why string, foreign bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		if uid := os.Geteuid(); int(st.Uid) != uid {
			return fmt.Sprintf("it belongs to uid %d, not to you (uid %d)", st.Uid, uid), true
		}
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Sprintf("its group or others may write it (mode %v)", fi.Mode()), false
	}
	return "", false
}
