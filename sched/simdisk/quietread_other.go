//go:build !linux

package simdisk

import "os"

// readQuiet is os.ReadFile: on this system simdisk's reads of what a file
// holds are ordered, for the race detector, after every write to a file,
// as the goroutines' own reads are (see quietread_linux.go).
func readQuiet(path string) ([]byte, error) { return os.ReadFile(path) }
