package engine

import (
	"bytes"
	"fmt"
	"reflect"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
)

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
	text      string
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
		head, _, _ := strings.Cut(text, "\n")
		rest := strings.TrimPrefix(head, "goroutine ")
		idStr, state, _ := strings.Cut(rest, " ")
		s.id, _ = strconv.ParseInt(idStr, 10, 64)
		s.state = strings.Trim(strings.TrimSuffix(state, ":"), "[]")
		if i := strings.LastIndex(text, "\ncreated by "); i >= 0 {
			line, _, _ := strings.Cut(text[i+len("\ncreated by "):], "\n")
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
// plain go statement and that are still alive.
//
//go:norace
func (r *Run) findEscapes() *Failure {
	ids := map[int64]int{}
	for _, g := range r.gs {
		ids[g.goid] = g.ID
	}
	var found []string
	for _, s := range splitStacks(allStacks()) {
		id, ok := ids[s.createdBy]
		if !ok || strings.HasPrefix(s.creator, enginePrefix) {
			continue
		}
		found = append(found, fmt.Sprintf("started by goroutine %d with a plain go statement:\n%s", id, s.text))
	}
	if len(found) == 0 {
		return nil
	}
	return &Failure{
		Kind: Escape,
		Message: fmt.Sprintf("escape: %d goroutine(s) started during the run outside the scheduler are still running; "+
			"they make the run nondeterministic: start them with sched.Go", len(found)),
		Stack: strings.Join(found, "\n\n"),
	}
}
