package engine

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// shadowState is the run's table from objects of native Go (a built-in
// channel, a *time.Timer) to the objects of the tool that stand for them
// inside the run (a *chans.Chan, a *vtime.Timer): code rewritten by
// dstreplay test keeps Go's types, and package native looks up, at each
// operation, what the scheduler knows of the value operated on.
//
// It is an open-addressing table of plain slices, not a Go map: the
// goroutines of a run use it in turn with no happens-before edge the race
// detector sees (see entropy.Source), and the runtime checks map accesses
// for races even in norace functions. A key is the native object's address;
// the entry keeps the object itself, so that its address is not reused
// while the run lasts.
type shadowState struct {
	shadows *shadowTable // made at the first SetShadow: most runs have none
}

type shadowTable struct {
	keys []uintptr
	vals []shadowEntry
	n    int
}

type shadowEntry struct {
	native any
	shadow any
	at     string // a channel adopted by the run: the line that first used it
	closed bool   // a channel the run closed (natively too)
}

// Shadow returns what stands for the native object at key in g's run, or
// nil.
//
//go:norace
func (g *G) Shadow(key unsafe.Pointer) any {
	t := g.run.shadows
	if t == nil || key == nil {
		return nil
	}
	mask := uintptr(len(t.keys) - 1)
	for i := shadowHash(uintptr(key)) & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case uintptr(key):
			return t.vals[i].shadow
		case 0:
			return nil
		}
	}
}

// SetShadow makes shadow stand for native, whose address is key, in g's run
// from now on.
//
//go:norace
func (g *G) SetShadow(key unsafe.Pointer, native, shadow any) {
	r := g.run
	if r.shadows == nil {
		r.shadows = newShadowTable()
	}
	t := r.shadows
	if 4*(t.n+1) > 3*len(t.keys) {
		t.grow()
	}
	t.put(uintptr(key), shadowEntry{native: native, shadow: shadow})
}

// entry is the entry of the native object at key, or nil.
//
//go:norace
func (t *shadowTable) entry(key unsafe.Pointer) *shadowEntry {
	if t == nil || key == nil {
		return nil
	}
	mask := uintptr(len(t.keys) - 1)
	for i := shadowHash(uintptr(key)) & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case uintptr(key):
			return &t.vals[i]
		case 0:
			return nil
		}
	}
}

// ShadowAdopted notes that the native channel at key, made outside the run
// (or by code that is not rewritten), was adopted by the run at at, the
// line of the code under test that first used it.
//
//go:norace
func (g *G) ShadowAdopted(key unsafe.Pointer, at string) {
	if e := g.run.shadows.entry(key); e != nil {
		e.at = at
	}
}

// ShadowClosed notes that the run closed the native channel at key, or
// adopted it closed: a close that the run saw.
//
//go:norace
func (g *G) ShadowClosed(key unsafe.Pointer) {
	if e := g.run.shadows.entry(key); e != nil {
		e.closed = true
	}
}

// UnseenAdvice, when set (package native sets it), says what to do about
// a send or close the run could not see on a channel of element type elem:
// the flag that makes a dependency's sends visible, and the dependencies
// that are likely to have sent.
var UnseenAdvice func(elem reflect.Type) string

// unseen turns f, a deadlock or a leak about to be reported, into a misuse
// when one of the run's native channels holds a value that the run did not
// send, or was closed where the run did not close it: code that the
// scheduler does not see (a dependency that dstreplay test did not rewrite,
// running on a goroutine of the run, or a goroutine the scheduler does not
// run) sent on it or closed it, and the goroutines "nothing can wake" may
// have been woken in Go. Rewritten code never sends on the native channel
// itself, and a channel adopted by the run starts with what it held then.
// Only the channel's length and, when it is empty, a receive attempt that
// does not block (and takes nothing from an open channel) are used.
//
//go:norace
func (r *Run) unseen(f *Failure) {
	t := r.shadows
	if t == nil {
		return
	}
	count := map[string]int{}
	var elem reflect.Type
	for i, k := range t.keys {
		if k == 0 {
			continue
		}
		e := &t.vals[i]
		v := reflect.ValueOf(e.native)
		if v.Kind() != reflect.Chan || v.IsNil() {
			continue
		}
		what := ""
		switch {
		case v.Len() > 0:
			what = "a value sent on"
		case v.Type().ChanDir() == reflect.BothDir && !e.closed:
			if x, ok := v.TryRecv(); x.IsValid() && !ok {
				what = "a close of"
			}
		}
		if what == "" {
			continue
		}
		s := what + " a " + v.Type().String()
		if e.at != "" {
			s += " that the run adopted at " + e.at
		} else {
			s += " that the run made"
		}
		count[s]++
		if elem == nil || v.Type().Elem().String() < elem.String() {
			elem = v.Type().Elem()
		}
	}
	if len(count) == 0 {
		return
	}
	var found []string
	for s, n := range count {
		if n > 1 {
			s += " (" + strconv.Itoa(n) + " such channels)"
		}
		found = append(found, s)
	}
	slices.Sort(found) // the table's order is the addresses'
	msg := "misuse: code the scheduler does not see sent on or closed channels of the run: " + strings.Join(found, "; ") +
		". That code is code that dstreplay test did not rewrite, running on a goroutine of the run (a dependency, " +
		"such as a mock clock), or a goroutine the scheduler does not run: the run cannot see whom it wakes, and without " +
		"it would have reported: " + f.Message
	if UnseenAdvice != nil {
		if a := UnseenAdvice(elem); a != "" {
			msg += "\n" + a
		}
	}
	f.Kind, f.Message = Misuse, msg
}

// put sets k's entry, in a table with room for it.
//
//go:norace
func (t *shadowTable) put(k uintptr, e shadowEntry) {
	mask := uintptr(len(t.keys) - 1)
	i := shadowHash(k) & mask
	for t.keys[i] != 0 && t.keys[i] != k {
		i = (i + 1) & mask
	}
	if t.keys[i] == 0 {
		t.keys[i] = k
		t.n++
	}
	t.vals[i] = e
}

// shadowTables keeps the tables of runs that ended, cleared, for the
// runs that come after: a run of an HTTP client and server makes channels
// by the thousand, and growing a new table each time was a sixth of the
// bytes a simulated GET allocated.
var shadowTables sync.Pool

// maxPooledShadow is the most slots a table kept for another run may
// have: clearing one costs as much as its size.
const maxPooledShadow = 1 << 14

func newShadowTable() *shadowTable {
	if t, ok := shadowTables.Get().(*shadowTable); ok {
		return t
	}
	return &shadowTable{}
}

// recycleShadows clears r's table and keeps it for another run, once
// nothing of r's can use it again.
//
//go:norace
func (r *Run) recycleShadows() {
	t := r.shadows
	r.shadows = nil
	if t == nil || len(t.keys) > maxPooledShadow {
		return
	}
	clear(t.keys)
	clear(t.vals)
	t.n = 0
	shadowTables.Put(t)
}

//go:norace
func (t *shadowTable) grow() {
	keys, vals := t.keys, t.vals
	n := max(16, 2*len(keys))
	t.keys, t.vals, t.n = make([]uintptr, n), make([]shadowEntry, n), 0
	for j, k := range keys {
		if k != 0 {
			t.put(k, vals[j])
		}
	}
}

// shadowHash spreads an address's bits (heap addresses share their low
// bits by size class).
func shadowHash(k uintptr) uintptr {
	x := uint64(k)
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return uintptr(x)
}

// Live is how many of g's run's goroutines have not exited, the body
// included: those the program's runtime.NumGoroutine would count in Go.
//
//go:norace
func (g *G) Live() int { return g.run.live }

// Goroutine is one of a run's goroutines, as package native shows it in
// a dump of the program's goroutines.
type Goroutine struct {
	ID   int   // the run's number for it
	Goid int64 // the runtime's id, 0 before its first turn
	// Live is whether it has not exited or crashed (G.Crash), in the scheduler's view (under
	// -race one that has exited lingers a while in the runtime's).
	Live    bool
	Blocked Op // what it is blocked in; OpNone when it can run
}

// Goroutines is every goroutine of g's run, in the order of their IDs.
//
//go:norace
func (g *G) Goroutines() []Goroutine {
	gs := make([]Goroutine, len(g.run.gs))
	for i, c := range g.run.gs {
		gs[i] = Goroutine{ID: c.ID, Goid: c.goid, Live: c.state != gExited && !c.killed}
		if c.state == gBlocked && !c.killed {
			gs[i].Blocked = c.op
		}
	}
	return gs
}
