//go:build !unix

package fuzzloop

import "os"

func mmap(*os.File, int) ([]byte, error) { return nil, errNoMmap }

func munmap([]byte) {}
