// Package gotest holds what the harness and dstreplay both need to know
// about invoking go test, so that a reproduce line and dstreplay exec select
// a test the same way.
package gotest

import (
	"regexp"
	"strings"
)

// RunPattern is the -run pattern that matches exactly the test (or subtest)
// called name, as t.Name() spells it.
func RunPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}
