package entropy_test

import (
	"bytes"
	"reflect"
	"testing"
	_ "unsafe" // for go:linkname

	"github.com/dstgo/dst/entropy"
)

// The scheduler hands control between goroutines with these runtime
// semaphores, which (unlike sync.Mutex) tell the race detector nothing, so
// the goroutines below are unsynchronized as far as it can see.

//go:linkname semacquire sync.runtime_Semacquire
func semacquire(s *uint32)

//go:linkname semrelease sync.runtime_Semrelease
func semrelease(s *uint32, handoff bool, skipframes int)

// sourceBox passes the current Source between the goroutines; like the
// scheduler's own state, it is norace.
type sourceBox struct{ s *entropy.Source }

//go:norace
func (b *sourceBox) get() *entropy.Source { return b.s }

//go:norace
func (b *sourceBox) set(s *entropy.Source) { b.s = s }

// TestHandoffRace draws from one Source alternately in two goroutines that
// hand over through runtime semaphores: first fresh (the Source created in
// one goroutine), then replaying the first half (the replay built in one
// goroutine, drawn from mostly in the other). Under -race the detector must
// report nothing; the replayed half must equal the fresh half.
func TestHandoffRace(t *testing.T) {
	const turns = 400 // per half; even, so each goroutine gets the same turns in both halves
	var sems [2]uint32
	var box sourceBox
	var got [2][]uint64 // each goroutine's draws, owned by it
	var freshRec []byte
	done := make(chan struct{}, 2)

	turn := func(g, t int) {
		if t == 0 {
			box.set(entropy.New(77))
		}
		if t == turns {
			// Built here, then used by the other goroutine with no
			// happens-before edge.
			box.set(entropy.Replay(box.get().Recording().Clone()))
		}
		s := box.get()
		x := s.At(entropy.Key(g + 1)).Uint64()
		x += uint64(s.Choice(5))
		x += uint64(s.At(3).IntRange(-10, 10))
		x += uint64(s.Weighted([]uint64{1, 0, 4}))
		if s.Bool(0.5) {
			x += 1 << 32
		}
		for _, b := range s.At(entropy.Key(g + 4)).Bytes(t % turns % 11) {
			x += uint64(b)
		}
		if s.Stop() {
			x += 1 << 40
		}
		got[g] = append(got[g], x)
	}
	for g := 0; g < 2; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for t := g; t < 2*turns; t += 2 {
				semacquire(&sems[g])
				turn(g, t)
				if t == turns-1 {
					freshRec, _ = box.get().Recording().MarshalBinary()
				}
				semrelease(&sems[1-g], false, 0)
			}
		}()
	}
	semrelease(&sems[0], false, 0)
	<-done
	<-done

	for g := 0; g < 2; g++ {
		half := len(got[g]) / 2
		if !reflect.DeepEqual(got[g][:half], got[g][half:]) {
			t.Errorf("goroutine %d: replayed draws differ from fresh ones", g)
		}
	}
	s := box.get()
	if s.Fallbacks() != 0 {
		t.Errorf("Fallbacks = %d", s.Fallbacks())
	}
	if out, _ := s.Recording().MarshalBinary(); !bytes.Equal(out, freshRec) {
		t.Errorf("replay recording differs from the fresh one")
	}
}
