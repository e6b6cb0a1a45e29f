package schedtest

import (
	"flag"
	"fmt"
	"go/build"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/gotest"
)

// deadlineShare: a test explores for at most 1/(deadlineShare+n) of the
// time go test's -timeout leaves the test binary when the test begins,
// with n the top-level tests still to run after it (testsAfter). A test
// whose thousand schedules take an hour (a pool's test at seconds a
// schedule) would otherwise end the binary, and every test after it, with
// go test's panic; a share of a quarter alone let the first slow tests of
// a suite spend the binary's time and left the rest of the suite unrun
// (ants at a 40-minute -timeout: 33 of 59 tests). Each test is given its
// part of what is left, the last a quarter, so that deadlineShare-1 parts
// remain for the test's own shrinking and running alone; a test that
// takes less leaves its part to the tests after it.
const deadlineShare = 4

// withinDeadline is o for a test that has left before go test's -timeout
// ends the test binary and after top-level tests to run after it: it stops
// exploring at left/(after+deadlineShare), unless a time budget was given
// (-dst.time) that, taken by this test and each after it, leaves at least
// a quarter of left.
func (o Options) withinDeadline(left time.Duration, after int) Options {
	o.timeLeft = left
	o.testsAfter = after
	if o.Time > 0 && o.Time*time.Duration(after+1) <= left-left/deadlineShare {
		return o // asked for, and it fits
	}
	o.stopBy = time.Now().Add(left / time.Duration(after+deadlineShare))
	return o
}

// suiteTests is what testsAfter knows of the test binary's tests.
var suiteTests struct {
	once     sync.Once
	names    []string // the top-level tests -run and -skip select, in go test's order; nil when unknown
	count    int      // -test.count
	shuffled bool     // -test.shuffle is not off: the order is not known
	mu       sync.Mutex
	pass     int             // how many times the list has been run through (-test.count)
	last     int             // the index of the test that last asked
	round    map[string]bool // the tests and subtests that have asked in this round
	seen     map[string]bool // under -test.shuffle, the tests that have asked
}

// testsAfter is how many top-level tests go test runs after the one name
// (t.Name()) belongs to, counted from the package's test files (go test
// runs a binary in its package's directory) and the -run, -skip, -count
// and -shuffle it was given; 0 when the test is not in the list (it could
// not be read, or the test is not declared there).
func testsAfter(name string) int {
	l := &suiteTests
	l.once.Do(loadSuiteTests)
	if l.names == nil {
		return 0
	}
	top, _, _ := strings.Cut(name, "/")
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shuffled {
		l.seen[top] = true
		return max(len(l.names)*l.count-len(l.seen), 0)
	}
	i := slices.Index(l.names, top)
	if i < 0 {
		return 0
	}
	if i < l.last || l.round[name] {
		// The next round of -test.count: within one, test and subtest
		// names are unique, and go in the list's order.
		l.pass++
		clear(l.round)
	}
	l.last = i
	l.round[name] = true
	return len(l.names) - 1 - i + max(l.count-1-l.pass, 0)*len(l.names)
}

func loadSuiteTests() {
	l := &suiteTests
	dir, err := os.Getwd()
	if err != nil {
		return
	}
	ctx := build.Default
	if engine.RaceEnabled {
		ctx.BuildTags = append(ctx.BuildTags, "race")
	}
	all, err := gotest.Tests(&ctx, dir)
	if err != nil {
		return
	}
	selected := gotest.TopLevel(testFlag("test.run"), testFlag("test.skip"))
	l.names = []string{}
	l.round = make(map[string]bool)
	for _, n := range all {
		if selected(n) {
			l.names = append(l.names, n)
		}
	}
	l.count = 1
	if n, err := strconv.Atoi(testFlag("test.count")); err == nil && n > 1 {
		l.count = n
	}
	if s := testFlag("test.shuffle"); s != "" && s != "off" {
		l.shuffled = true
		l.seen = make(map[string]bool)
	}
}

// testFlag is the value of the test binary's flag name, or "".
func testFlag(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// deadlineNote says why x stopped before o's budget (x.nearDeadline).
func deadlineNote(o Options, x exploration) string {
	after := "it is the last test to run"
	switch o.testsAfter {
	case 0:
	case 1:
		after = "1 test runs after it"
	default:
		after = strconv.Itoa(o.testsAfter) + " tests run after it"
	}
	return fmt.Sprintf("the exploration stopped after %d schedules in %v, before its budget (%s): a test explores "+
		"for at most 1/%d of the time go test's -timeout left the test binary when it began (%v; %s), so that the "+
		"tests after it run too; raise -timeout to explore more", x.n, x.elapsed.Round(time.Millisecond), budget(o),
		o.testsAfter+deadlineShare, o.timeLeft.Round(time.Second), after)
}
