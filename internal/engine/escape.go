package engine

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A run's goroutines carry a profiler label that names the run (in place of
// any labels they would have inherited). Go copies a goroutine's labels to
// every goroutine it starts, so a plain goroutine started during the run
// carries it too, and so do the goroutines it starts after it has returned,
// when no "created by" line leads back to the run any more. A goroutine
// that sets labels of its own from a context without ours (pprof.Do with
// context.Background, say, which leaves the goroutine with that context's
// labels when it returns) has lost it from then on, and so have the
// goroutines it starts after; those are still found through their "created
// by" lines while their starter lives.
const runLabelKey = "dst.run"

type runLabel struct {
	ctx       context.Context
	mark      string // how the label reads in a stack dump's header
	countMark string // how it reads in the goroutine profile
}

var (
	runLabels  sync.Pool
	runLabelID atomic.Uint64
)

// newRunLabel returns a label that no goroutine alive carries, or at most
// one that is on its way out.
func newRunLabel() *runLabel {
	if l, ok := runLabels.Get().(*runLabel); ok {
		return l
	}
	id := strconv.FormatUint(runLabelID.Add(1), 10)
	return &runLabel{
		ctx:       pprof.WithLabels(context.Background(), pprof.Labels(runLabelKey, id)),
		mark:      strconv.Quote(runLabelKey) + ": " + strconv.Quote(id),
		countMark: strconv.Quote(runLabelKey) + ":" + strconv.Quote(id),
	}
}

// carriers is how many goroutines carry the label, read from the goroutine
// profile, which shows labels without turning them on for the whole
// process.
func (l *runLabel) carriers() int {
	var b strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		return 0
	}
	n, group := 0, 0
	for line := range strings.Lines(b.String()) {
		if count, _, ok := strings.Cut(line, " @ "); ok { // "3 @ 0x43a1b6 0x..."
			group, _ = strconv.Atoi(count)
		} else if labels, ok := strings.CutPrefix(line, "# labels: "); ok && strings.Contains(labels, l.countMark) {
			n += group
		}
	}
	return n
}

// labelDumps serializes dumps that turn labels on, which is process-wide.
var labelDumps sync.Mutex

// labeledStacks is allStacks with each goroutine's labels in its header
// (GODEBUG=tracebacklabels=1 for the time of the dump). The setting is the
// process's: another goroutine that reads $GODEBUG meanwhile (a command
// started then) sees it, so it is used only when the goroutine profile
// says that goroutines carry a run's label that their "created by" lines
// do not explain.
func labeledStacks() []byte {
	labelDumps.Lock()
	defer labelDumps.Unlock()
	old, had := os.LookupEnv("GODEBUG")
	on := "tracebacklabels=1"
	if old != "" {
		on = old + "," + on // the last setting wins
	}
	os.Setenv("GODEBUG", on)
	defer func() {
		if had {
			os.Setenv("GODEBUG", old)
		} else {
			os.Unsetenv("GODEBUG")
		}
	}()
	return allStacks()
}

// samples are reused: metrics.Read fills the slice it is given, and runs in
// parallel read at once.
var samples = sync.Pool{New: func() any {
	return []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
}}

// goroutinesCreated is how many goroutines the process has created so far.
// A run that saw more created than it spawned may have let one escape.
func goroutinesCreated() uint64 {
	s := samples.Get().([]metrics.Sample)
	defer samples.Put(s)
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// enginePrefix is the function-name prefix of this package, which starts
// every managed goroutine.
var enginePrefix = func() string {
	name := runtime.FuncForPC(reflect.ValueOf(Current).Pointer()).Name()
	return strings.TrimSuffix(name, "Current")
}()

type stack struct {
	id        int64
	state     string
	creator   string // function that started it
	createdBy int64  // goroutine that started it
	createdAt string // file:line of the go statement
	labels    string // its profiler labels, if the dump shows them
	text      string // without the labels
}

// splitStacks parses a runtime.Stack(all) dump.
func splitStacks(dump []byte) []stack {
	var out []stack
	for _, block := range bytes.Split(dump, []byte("\n\n")) {
		text := strings.TrimSpace(string(block))
		if !strings.HasPrefix(text, "goroutine ") {
			continue
		}
		var s stack
		s.text = text
		head, body, _ := strings.Cut(text, "\n")
		if i := strings.Index(head, " labels:{"); i >= 0 && strings.HasSuffix(head, "}]:") {
			s.labels = head[i+len(" labels:{") : len(head)-len("}]:")]
			head = head[:i] + "]:"
			s.text = head + "\n" + body
		}
		rest := strings.TrimPrefix(head, "goroutine ")
		idStr, state, _ := strings.Cut(rest, " ")
		s.id, _ = strconv.ParseInt(idStr, 10, 64)
		s.state = strings.Trim(strings.TrimSuffix(state, ":"), "[]")
		own, _, _ := strings.Cut(text, "\n[originating from goroutine ") // GODEBUG=tracebackancestors adds its starters' stacks
		if i := strings.LastIndex(own, "\ncreated by "); i >= 0 {
			line, at, _ := strings.Cut(own[i+len("\ncreated by "):], "\n")
			at, _, _ = strings.Cut(strings.TrimSpace(at), " +0x")
			if at != "" {
				s.createdAt = filepath.Base(at)
			}
			fn, g, ok := strings.Cut(line, " in goroutine ")
			s.creator = fn
			if ok {
				s.createdBy, _ = strconv.ParseInt(g, 10, 64)
			}
		}
		out = append(out, s)
	}
	return out
}

// findEscapes looks for goroutines that a managed goroutine started with a
// plain go statement, or that one of those started in turn (found through
// their "created by" lines, or the run's label), and that are still
// alive. One that is exiting is not; one that still runs (runnable,
// running, in a system call) is given a moment to end, and if it does not,
// the report says that whether it outlives the run depends on timing the
// scheduler does not control. One blocked (on a native channel, a sync
// lock, a sleep) is reported as it waits.
//
//go:norace
func (r *Run) findEscapes() *Failure {
	ids := map[int64]int{}
	for _, g := range r.gs {
		ids[g.goid] = g.ID
	}
	escapees := func(stacks []stack) []stack {
		origin := map[int64]int{} // escaped goroutine: the managed one whose go statement it descends from
		for changed := true; changed; {
			changed = false
			for _, s := range stacks {
				if _, done := origin[s.id]; done || strings.HasPrefix(s.creator, enginePrefix) {
					continue
				}
				if id, ok := ids[s.createdBy]; ok {
					origin[s.id], changed = id, true
				} else if id, ok := origin[s.createdBy]; ok {
					origin[s.id], changed = id, true
				}
			}
		}
		var out []stack
		for _, s := range stacks {
			_, chained := origin[s.id]
			labeled := strings.Contains(s.labels, r.label.mark) && !strings.HasPrefix(s.creator, enginePrefix)
			if _, managed := ids[s.id]; !managed && (chained || labeled) && !exiting(s) {
				out = append(out, s)
			}
		}
		return out
	}
	escaped := func() []stack {
		found := escapees(splitStacks(allStacks()))
		if r.label.carriers() > len(found) {
			found = escapees(splitStacks(labeledStacks()))
		}
		return found
	}
	found := escaped()
	for try := 0; try < 10 && slices.ContainsFunc(found, running); try++ {
		time.Sleep(time.Millisecond) // a moment for those still running to end
		found = escaped()
	}
	if len(found) == 0 {
		return nil
	}
	alive := map[int64]bool{}
	for _, s := range found {
		alive[s.id] = true
	}
	// Goroutines started by one go statement and waiting at one place are
	// shown once, with the others' ids.
	type group struct {
		how   string
		first stack
		more  []int64
	}
	var groups []*group
	byKey := map[string]*group{}
	var starts []string
	timing := false
	for _, s := range found {
		var how string
		if id, ok := ids[s.createdBy]; ok {
			how = fmt.Sprintf("started by goroutine %d with a plain go statement", id)
		} else {
			how = "started by a goroutine that a plain go statement of the run started"
			if !alive[s.createdBy] {
				how += ", and that has since returned"
			}
		}
		if running(s) {
			timing = true
			how += ", still running (whether it outlives the run depends on timing outside the scheduler)"
		}
		if s.createdAt != "" && !running(s) { // which still run depends on timing
			starts = append(starts, "go "+s.createdAt)
		}
		key := how + "\n" + alike(s)
		if g := byKey[key]; g != nil {
			g.more = append(g.more, s.id)
			continue
		}
		g := &group{how: how, first: s}
		byKey[key] = g
		groups = append(groups, g)
	}
	var texts []string
	for _, g := range groups {
		how := g.how
		if n := len(g.more); n > 0 {
			ids := make([]string, 0, min(n, maxAlikeIDs))
			for _, id := range g.more[:min(n, maxAlikeIDs)] {
				ids = append(ids, strconv.FormatInt(id, 10))
			}
			list := strings.Join(ids, ", ")
			if n > maxAlikeIDs {
				list += ", ..."
			}
			how += fmt.Sprintf("; %d goroutines alike, this one and goroutines %s", n+1, list)
		}
		texts = append(texts, how+":\n"+g.first.text)
	}
	msg := fmt.Sprintf("escape: %d goroutine(s) started during the run outside the scheduler are still alive; "+
		"they make the run nondeterministic: start them with sched.Go", len(found))
	if timing {
		msg += " (some were still running: this report depends on timing the scheduler does not control)"
	}
	return &Failure{Kind: Escape, Message: msg, Stack: strings.Join(texts, "\n\n"), Place: places(starts)}
}

// maxAlikeIDs is how many ids of goroutines alike an escape report lists.
const maxAlikeIDs = 8

// alike is a goroutine's wait and stack without its ids and times:
// goroutines that one go statement started and that wait at one place
// read the same.
func alike(s stack) string {
	state, _, _ := strings.Cut(s.state, ",") // "chan receive, 2 minutes"
	_, frames, _ := strings.Cut(s.text, "\n")
	return state + "\n" + strings.Replace(frames, fmt.Sprintf(" in goroutine %d\n", s.createdBy), "\n", 1)
}

// running reports whether a goroutine runs or may run now, rather than
// waiting: its end depends on timing.
func running(s stack) bool {
	state, _, _ := strings.Cut(s.state, ",")
	return state == "runnable" || state == "running" || state == "syscall"
}

// exiting reports whether a goroutine is already on its way out (its
// stack is the runtime's exit path).
func exiting(s stack) bool {
	_, rest, _ := strings.Cut(s.text, "\n")
	return strings.HasPrefix(rest, "runtime.goexit")
}
