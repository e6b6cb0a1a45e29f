// Package bugs is a catalogue of concurrency bug patterns found in real Go
// programs (Tu et al., ASPLOS'19; GoBench, CGO'21), each written three ways:
// a buggy version and its fixed twin for the scheduler (package sched), and
// the buggy version in plain Go, so that the scheduler's detection can be
// compared with running natively.
//
// Each pattern's buggy version has some schedule that fails, reported as
// Expect; its fixed twin has none. The tests assert both, and the report
// test measures how many executions each needs to find the bug.
package bugs

import (
	"slices"
	"strings"

	"github.com/dstgo/dst/sched/schedtest"
)

// Pattern is one bug pattern.
type Pattern struct {
	Name  string // a short id, such as "double-lock"
	Class string // the study's class, such as "resource deadlock / double locking"
	// Buggy and Fixed run under the scheduler.
	Buggy, Fixed func(t *schedtest.T)
	// Expect is how the scheduler reports Buggy.
	Expect schedtest.FailureKind
	// Options, when set, shape the exploration (faults, step bound).
	Options schedtest.Options
	// Native is Buggy in plain Go: it runs once and returns an error when the
	// bug showed in that run (a wrong result, a panic, a hang or a leaked
	// goroutine, within the time limits of native.go). Data races that
	// leave no trace but the race detector's report return nil.
	Native func() error
}

var catalogue []Pattern

// register adds p to the catalogue; each pattern's file calls it in init.
func register(p Pattern) { catalogue = append(catalogue, p) }

// Catalogue returns the patterns, by name.
func Catalogue() []Pattern {
	c := slices.Clone(catalogue)
	slices.SortFunc(c, func(a, b Pattern) int { return strings.Compare(a.Name, b.Name) })
	return c
}
