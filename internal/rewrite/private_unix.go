//go:build unix

package rewrite

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// sharedAbove says which directory above the cache's root dir (or link on
// the way to it) another user could change, and why; "" when none. Each
// directory above the root, the link's targets resolved, must be the
// user's or root's, and not writable by others unless it is sticky, as
// /tmp is, where others may not rename or remove what is the user's; each
// link on the way must be the user's or root's. Otherwise another user
// could move the cache's directory aside and put one of theirs in its
// place, after dstreplay's checks and before the go command reads the
// files, as OpenSSH's StrictModes guards a user's keys.
func sharedAbove(dir string) (where, why string) {
	uid := os.Geteuid()
	owner := func(fi fs.FileInfo) (int, bool) {
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return 0, true
		}
		return int(st.Uid), int(st.Uid) == uid || st.Uid == 0
	}
	for p := dir; ; {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if u, ok := owner(fi); !ok {
				return p, fmt.Sprintf("it is a symbolic link of uid %d, who could point it elsewhere", u)
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return dir, err.Error()
	}
	for p := filepath.Dir(real); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return p, err.Error()
		}
		if u, ok := owner(fi); !ok {
			return p, fmt.Sprintf("it belongs to uid %d, who could move the cache aside", u)
		}
		if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
			return p, fmt.Sprintf("its group or others may write it and it is not sticky (mode %v), so they could move the cache aside", fi.Mode())
		}
		if filepath.Dir(p) == p {
			return "", ""
		}
	}
}
