package native_test

import (
	"fmt"
	"math"
	randv2 "math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/native"
	"github.com/dstgo/dst/sched/schedtest"
)

// TestMapOrderUnchanged: a seed ranges over maps of integer, string,
// struct, float and bool keys in the orders it did before the keys of
// integer, string and bool kinds were sorted in place (the orders below
// are those of the code before), so a saved recording replays the run it
// recorded.
func TestMapOrderUnchanged(t *testing.T) {
	type point struct{ x, y int }
	var out []string
	_, err := schedtest.Run(schedtest.Options{Seed: 7}, func(*schedtest.T) {
		ints := map[int]bool{}
		strs := map[string]bool{}
		u8 := map[uint8]bool{}
		pts := map[point]bool{}
		fl := map[float64]bool{}
		for i := range 12 {
			ints[(i-6)*1000003] = true
			strs[fmt.Sprint("k", i*7%12)] = true
			u8[uint8(i*37)] = true
			pts[point{i % 3, -i}] = true
			fl[float64(i)/3-1] = true
		}
		bools := map[bool]int{true: 1, false: 0}
		for range 2 {
			var s string
			for k := range native.Map(ints) {
				s += fmt.Sprint(k, ",")
			}
			out = append(out, s)
			s = ""
			for k := range native.Map(strs) {
				s += fmt.Sprint(k, ",")
			}
			out = append(out, s)
			s = ""
			for k := range native.Map(u8) {
				s += fmt.Sprint(k, ",")
			}
			out = append(out, s)
			s = ""
			for k := range native.Map(pts) {
				s += fmt.Sprint(k.x, k.y, ",")
			}
			out = append(out, s)
			s = ""
			for k := range native.Map(fl) {
				s += fmt.Sprintf("%.3g,", k)
			}
			out = append(out, s)
			s = ""
			for k := range native.Map(bools) {
				s += fmt.Sprint(k, ",")
			}
			out = append(out, s)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"2000006,-1000003,-4000012,-5000015,-3000009,3000009,1000003,4000012,-6000018,0,5000015,-2000006,",
		"k10,k7,k3,k9,k6,k1,k0,k11,k8,k4,k5,k2,",
		"222,37,3,77,148,40,74,114,0,111,151,185,",
		"2 -5,2 -2,1 -10,0 -9,2 -11,1 -4,0 -3,0 0,0 -6,1 -1,1 -7,2 -8,",
		"1.33,0,2.33,-0.333,1,2,0.667,2.67,0.333,-0.667,1.67,-1,",
		"true,false,",
		"4000012,-4000012,5000015,-2000006,-5000015,-1000003,1000003,-6000018,3000009,0,2000006,-3000009,",
		"k8,k0,k7,k10,k9,k1,k5,k2,k6,k4,k11,k3,",
		"77,3,74,185,148,40,111,222,114,37,151,0,",
		"1 -1,0 -6,2 -2,0 -3,1 -4,2 -8,2 -5,2 -11,0 -9,0 0,1 -10,1 -7,",
		"-0.333,2.33,1.67,2,-0.667,0.667,-1,1,0,2.67,0.333,1.33,",
		"true,false,",
	}
	if !slices.Equal(out, want) {
		t.Errorf("orders:\n%q\nwant (as before):\n%q", out, want)
	}
}

// TestMapRangeAsDocumented: inside a run, Map produces each entry once,
// with its value when the range reaches it; not an entry deleted before
// the range reaches it, nor one added during the range; NaN keys with
// their values; and it stops when the body breaks. Keys of the kinds
// sorted in place and of those ordered through reflect alike.
func TestMapRangeAsDocumented(t *testing.T) {
	res, err := schedtest.Run(schedtest.Options{Seed: 3}, func(rt *schedtest.T) {
		ints := map[int]int{}
		for i := range 100 {
			ints[i] = i
		}
		got := map[int]int{}
		for k, v := range native.Map(ints) {
			got[k] = v
			delete(ints, k^1) // the partner, if not yet reached, is not produced
			ints[k+1000] = k  // added: not produced
			if _, ok := ints[k^2]; ok && k^2 < 100 {
				ints[k^2] = -1 // updated: produced with its new value
			}
		}
		for k, v := range got {
			if k >= 100 {
				rt.Errorf("the key %d added during the range was produced", k)
			}
			if _, ok := got[k^1]; ok {
				rt.Errorf("keys %d and %d were both produced, though each deletes the other", k, k^1)
			}
			if v != k && v != -1 {
				rt.Errorf("key %d produced with %d", k, v)
			}
		}
		nan := math.NaN()
		fl := map[float64]string{nan: "a", nan: "b", 1: "one"}
		fl[math.NaN()] = "c"
		var vals []string
		for _, v := range native.Map(fl) {
			vals = append(vals, v)
		}
		slices.Sort(vals)
		if want := []string{"a", "b", "c", "one"}; !slices.Equal(vals, want) {
			rt.Errorf("a map with NaN keys ranged over %q, want %q in some order", vals, want)
		}
		n := 0
		for range native.Map(map[string]int{"a": 1, "b": 2, "c": 3}) {
			n++
			break
		}
		if n != 1 {
			rt.Errorf("the range went on %d times after a break", n)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil {
		t.Fatal(res.Failure)
	}
}

// state is what a map's pointer keys point to: a field that goroutines
// of the run store atomically, as net/http's conn does its state.
type state struct{ n atomic.Int64 }

// TestMapPointerKeysRace: ordering a map's pointer keys reads what they
// point to (%#v prints it) where the race detector does not see it, so
// that a goroutine of the run storing into one while another ranges over
// the map is not reported as a race, which it is not: the read is the
// tool's. Regression (under -race): net/http's Server.closeIdleConns,
// ranging over its map[*conn]struct{} while a connection set its state.
// The order is the same in every schedule of one seed.
func TestMapPointerKeysRace(t *testing.T) {
	keys := map[*state]bool{}
	var ks []*state
	for i := range 8 {
		k := &state{}
		k.n.Store(int64(i))
		keys[k] = true
		ks = append(ks, k)
	}
	orders := map[string]bool{}
	err := schedtest.Check(schedtest.Options{Seed: 3, Iterations: 20}, func(st *schedtest.T) {
		var wg sched.WaitGroup
		wg.Add(1)
		sched.Go(func() {
			defer wg.Done()
			for _, k := range ks {
				k.n.Add(10)
				sched.Yield()
			}
		})
		var order []int64
		for k := range native.Map(keys) {
			order = append(order, k.n.Load()%10)
		}
		wg.Wait()
		if len(order) != 8 {
			st.Errorf("the range produced %d keys, want 8", len(order))
		}
		orders[fmt.Sprint(order)] = true
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(orders) < 2 {
		t.Errorf("one order in 20 schedules: %v", orders)
	}
}

// named is a map key whose content is behind a pointer.
type named struct{ name *string }

// TestMapPointerKeysByContent: a range over pointer keys is ordered by what
// they point to, pointers in there followed, not by any address: keys
// alike but allocated in the other order range in the same order under
// the same seed, as a saved trace replayed in another process must.
// Regression: %#v printed the inner pointer as an address, and a trace of
// net/http's Server.closeIdleConns diverged when replayed.
func TestMapPointerKeysByContent(t *testing.T) {
	order := func(reverse bool) string {
		m := map[*named]bool{}
		for i := range 12 {
			if reverse {
				i = 11 - i
			}
			s := fmt.Sprint("k", i)
			m[&named{&s}] = true
		}
		var got []string
		_, err := schedtest.Run(schedtest.Options{Seed: 5}, func(*schedtest.T) {
			for k := range native.Map(m) {
				got = append(got, *k.name)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(got)
	}
	if a, b := order(false), order(true); a != b {
		t.Errorf("the same keys, allocated in the other order, range as %s, then as %s", a, b)
	}
}

// shared is what many keys point to, with more content than one depth's
// form holds.
type shared struct{ config string }

// conn is a key whose first field leads to what every key shares, and
// whose own content comes after it.
type conn struct {
	srv  *shared
	addr string
}

// TestMapPointerKeysOwnContentFirst: keys that differ only past a shared
// target of much content are ordered by their own fields, which come
// first in the form, not by Go's map order once the form's bound is
// reached. Regression: net/http's conns all point first to their Server;
// its form filled the bound before the conn's remoteAddr, the keys tied,
// and a saved trace of Server.Close's closeIdleConns diverged when
// replayed in a new process (atomic#42 recorded, atomic#30 replayed).
func TestMapPointerKeysOwnContentFirst(t *testing.T) {
	srv := &shared{config: strings.Repeat("x", 4000)}
	order := func(reverse bool) string {
		m := map[*conn]bool{}
		for i := range 12 {
			if reverse {
				i = 11 - i
			}
			m[&conn{srv, fmt.Sprint("127.0.0.1:", 40000+i)}] = true
		}
		var got []string
		_, err := schedtest.Run(schedtest.Options{Seed: 5}, func(*schedtest.T) {
			for k := range native.Map(m) {
				got = append(got, k.addr)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(got)
	}
	if a, b := order(false), order(true); a != b {
		t.Errorf("the same keys, allocated in the other order, range as %s, then as %s", a, b)
	}
}

// TestMapTiedKeysNoted: a range over pointer keys alike in content, whose
// order is then Go's, says so in the run's log, once per map type; keys
// that differ say nothing.
func TestMapTiedKeysNoted(t *testing.T) {
	alike := map[*int]bool{new(int): true, new(int): true, new(int): true}
	one, two := 1, 2
	distinct := map[*int]bool{&one: true, &two: true}
	logs := func(m map[*int]bool, ranges int) []string {
		res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(*schedtest.T) {
			for range ranges {
				for range native.Map(m) {
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return res.Logs
	}
	if l := logs(alike, 3); len(l) != 1 || !strings.Contains(l[0], "map[*int]bool met keys alike") {
		t.Errorf("three ranges over keys alike logged %q, want one note naming map[*int]bool", l)
	}
	if l := logs(distinct, 3); len(l) != 0 {
		t.Errorf("ranges over distinct keys logged %q", l)
	}
}

// TestShuffleAsRandV2: the shuffle of map ranges swaps what math/rand/v2's
// Shuffle over a PCG of the same seeds swaps, in the same order, so that a
// seed orders a range as it did when Map called Shuffle; and it allocates
// nothing.
func TestShuffleAsRandV2(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 64, 100, 1000} {
		for s := range uint64(200) {
			seed := s*0x9e3779b97f4a7c15 + uint64(n)
			var want, got [][2]int
			randv2.New(randv2.NewPCG(seed, seed>>32|seed<<32)).Shuffle(n, func(i, j int) {
				want = append(want, [2]int{i, j})
			})
			native.Shuffle(seed, n, func(i, j int) { got = append(got, [2]int{i, j}) })
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d seed=%#x: swaps %v, math/rand/v2 swaps %v", n, seed, got, want)
			}
		}
	}
	keys := make([]int, 50)
	if a := testing.AllocsPerRun(100, func() {
		native.Shuffle(7, len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	}); a != 0 {
		t.Errorf("a shuffle allocates %v times", a)
	}
}
