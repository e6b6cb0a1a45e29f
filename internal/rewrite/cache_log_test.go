package rewrite_test

import (
	"io"

	"github.com/dstgo/dst/internal/rewrite"
)

// logTo sends the cache's notes of opts to w.
func logTo(opts *rewrite.Options, w io.Writer) { opts.Stderr = w }
