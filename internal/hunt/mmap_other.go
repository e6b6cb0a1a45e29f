//go:build !unix

package hunt

import "os"

func mmap(*os.File, int) ([]byte, error) { return nil, errNoMmap }

func munmap([]byte) {}
