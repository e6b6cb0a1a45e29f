//go:build !unix

package cli

// sourceOpenFlags: elsewhere, the checks before and after the open stand
// alone.
const sourceOpenFlags = 0
