//go:build unix

package rewrite

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// notPrivate says why others than the current user could change what fi
// describes: it is not the user's (foreign), or its group or others may
// write it; "" when only the user can.
func notPrivate(fi fs.FileInfo) (why string, foreign bool) {
	if owner, ok := ownerOf(fi); ok && owner != os.Geteuid() {
		return fmt.Sprintf("it belongs to uid %d, not to you (uid %d)", owner, os.Geteuid()), true
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Sprintf("its group or others may write it (mode %v)", fi.Mode()), false
	}
	return "", false
}

// aboveCache says what the directories above the cache's root dir, and
// the links on the way to it, let other users do. refuse, with where, says
// why the cache is refused: a directory others may write that is not
// sticky (as /tmp is, where others may not rename or remove what is the
// user's), in which they could move the cache aside and put theirs in its
// place after dstreplay's checks and before the go command reads the
// files, as OpenSSH's StrictModes guards a user's keys; a directory whose
// group may write it is fine when the group is the user's own (a user
// private group, umask 002). warn says why the cache is used with a note:
// a directory or link another user owns, who could make it so (the home
// of another uid in a container that runs as root is common and harmless;
// on a host others use, it is not). Directories the cache does not have
// yet, which dstreplay will create private, are skipped.
func aboveCache(dir string) (where, refuse, warn string) {
	// owner is fi's owner, and whether it is the user or root.
	owner := func(fi fs.FileInfo) (int, bool) {
		u, known := ownerOf(fi)
		return u, !known || u == os.Geteuid() || u == 0
	}
	check := func(p string, fi fs.FileInfo) {
		if refuse != "" {
			return
		}
		perm := fi.Mode().Perm()
		switch {
		case fi.Mode()&fs.ModeSticky != 0:
		case perm&0o002 != 0:
			where, refuse = p, fmt.Sprintf("others may write it and it is not sticky (mode %v)", fi.Mode())
			return
		case perm&0o020 != 0 && !privateGroup(fi):
			where, refuse = p, fmt.Sprintf("its group, not yours alone, may write it and it is not sticky (mode %v)", fi.Mode())
			return
		}
		if u, ok := owner(fi); !ok && warn == "" {
			warn = fmt.Sprintf("%s above the cache belongs to uid %d, who could change the code that dstreplay test compiles", p, u)
		}
	}
	// The path as given: the directories that hold its links too.
	deepest := ""
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		if fi, err := os.Lstat(p); err == nil {
			if deepest == "" {
				deepest = p
			}
			if fi.Mode()&fs.ModeSymlink != 0 {
				if u, ok := owner(fi); !ok && warn == "" {
					warn = fmt.Sprintf("%s, a link on the way to the cache, belongs to uid %d, who could point it elsewhere", p, u)
				}
			}
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				check(p, st)
			}
		}
		if filepath.Dir(p) == p {
			break
		}
	}
	// The path the links lead to.
	if deepest != "" {
		if real, err := filepath.EvalSymlinks(deepest); err == nil {
			for p := real; ; p = filepath.Dir(p) {
				if st, err := os.Stat(p); err == nil {
					check(p, st)
				}
				if filepath.Dir(p) == p {
					break
				}
			}
		}
	}
	return where, refuse, warn
}

// ownerOf is the uid of fi's owner, when the file system says.
func ownerOf(fi fs.FileInfo) (uid int, known bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// privateGroup reports whether the group of fi is the user's own: the
// user's primary group, of the user's name and no other member.
func privateGroup(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Gid) != os.Getegid() {
		return false
	}
	u, err := user.Current()
	if err != nil {
		return false
	}
	g, err := user.LookupGroupId(strconv.Itoa(int(st.Gid)))
	return err == nil && g.Name == u.Username
}
