//go:build !unix

package rewrite

import "io/fs"

// notPrivate says why others than the current user could change what fi
// describes. Outside Unix the mode bits say nothing of it (Windows reports
// 0777 for every directory), so it trusts the file system's access lists:
// every file is taken to be the user's.
func notPrivate(fs.FileInfo) (why string, foreign bool) { return "", false }

// aboveCache says what the directories above the cache's root let other
// users do; outside Unix, as notPrivate, nothing.
func aboveCache(string) (where, refuse, warn string) { return "", "", "" }
