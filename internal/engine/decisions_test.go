package engine_test

import (
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/event"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/vtime"
)

// The scheduler's decisions, pinned: every workload below runs under each
// strategy and several seeds, with its trace recorded and its decisions
// transcribed, and the digest of what the run did must be the one in
// decisionDigests. Those were recorded from the previous implementation of
// the runnable set (a slice sorted by ID, shifted at every wake and block,
// and scanned at every PCT and POS decision) before it was replaced by a
// Fenwick tree and a priority heap (runnable.go): a choice index, PCT's
// and POS's pick and the recorded rank must not have changed. A deliberate
// change of the decisions updates them (DST_DECISIONS=print prints them).

// decisionWorkloads are bodies with few and many goroutines, blocking and
// waking on mutexes, channels, conditions and timers, yielding, spawning
// and exiting.
var decisionWorkloads = []struct {
	name string
	body func()
}{
	{"fanin3", func() { fanIn(3) }},
	{"fanin300", func() { fanIn(300) }},
	{"mutex5", func() { mutexRing(5, 4) }},
	{"mutex70", func() { mutexRing(70, 3) }},
	{"yield40", func() { yielders(40, 4) }},
	{"mix", mix},
	{"broadcast50", func() { broadcast(50) }},
	{"timers30", func() { timers(30) }},
	{"deadlock", deadlock},
}

// fanIn: n goroutines each send once on one unbuffered channel that the
// body drains.
func fanIn(n int) {
	c := chans.Make[int](0)
	for i := range n {
		sched.Go(func() { c.Send(i) })
	}
	for range n {
		c.Recv()
	}
}

// mutexRing: n goroutines take one mutex k times each, yielding inside.
func mutexRing(n, k int) {
	var mu sched.Mutex
	var wg sched.WaitGroup
	x := 0
	for range n {
		wg.Go(func() {
			for range k {
				mu.Lock()
				x++
				sched.Yield()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// yielders: n goroutines yield k times each.
func yielders(n, k int) {
	var wg sched.WaitGroup
	for range n {
		wg.Go(func() {
			for range k {
				sched.Yield()
			}
		})
	}
	wg.Wait()
}

// mix: goroutines that spawn others, exit early, pass values through a
// buffered channel, lock, sleep and select.
func mix() {
	var wg sched.WaitGroup
	var mu sched.Mutex
	c := chans.Make[int](2)
	done := chans.Make[struct{}](0)
	for i := range 12 {
		wg.Go(func() {
			if i%4 == 0 {
				return // exits at once
			}
			if i%3 == 0 {
				wg.Go(func() {
					sched.Yield()
					c.Send(-i)
				})
			}
			mu.Lock()
			sched.Yield()
			mu.Unlock()
			if i%2 == 0 {
				vtime.Sleep(time.Duration(i) * time.Millisecond)
			}
			c.Send(i)
		})
	}
	sched.Go(func() {
		var v int
		var d struct{}
		for chans.Select(c.CaseRecv(&v), done.CaseRecv(&d)) != 1 {
		}
	})
	wg.Wait()
	done.Send(struct{}{})
}

// broadcast: n goroutines wait on one condition, woken all at once, and
// then take the mutex in turn (POS redraws the priorities of goroutines
// waiting on the same object).
func broadcast(n int) {
	var mu sched.Mutex
	cond := sched.NewCond(&mu)
	ready := false
	var wg sched.WaitGroup
	for range n {
		wg.Go(func() {
			mu.Lock()
			for !ready {
				cond.Wait()
			}
			mu.Unlock()
		})
	}
	for range 3 {
		sched.Yield()
	}
	mu.Lock()
	ready = true
	cond.Broadcast()
	mu.Unlock()
	wg.Wait()
}

// timers: n goroutines sleep for various times and report on a channel;
// one timer goes off with nobody left to receive.
func timers(n int) {
	c := chans.Make[int](0)
	for i := range n {
		sched.Go(func() {
			vtime.Sleep(time.Duration(i%7) * time.Millisecond)
			sched.Yield()
			c.Send(i)
		})
	}
	t := vtime.After(time.Second)
	for range n {
		c.Recv()
	}
	_ = t
}

// deadlock: two goroutines each wait for the other's value.
func deadlock() {
	a, b := chans.Make[int](0), chans.Make[int](0)
	sched.Go(func() { a.Send(b.Recv()) })
	sched.Go(func() { b.Send(a.Recv()) })
	sched.Yield()
}

type decisionStrategy struct {
	name     string
	strategy engine.Strategy
	depth    int
}

var decisionStrategies = []decisionStrategy{
	{"random", engine.Random, 0},
	{"pct1", engine.PCT, 1},
	{"pct3", engine.PCT, 3},
	{"pct10", engine.PCT, 10},
	{"pos", engine.POS, 0},
}

// decisionDigest runs body once and digests its decisions: the trace (each
// switch carries the rank of the chosen goroutine and how many were
// runnable), the transcript, the entropy drawn, and the outcome.
func decisionDigest(t *testing.T, s decisionStrategy, seed uint64, body func()) string {
	t.Helper()
	var tr event.Buffer
	src := entropy.New(seed)
	out := engine.Execute(engine.Config{
		Name: "decisions", Source: src, Strategy: s.strategy, Depth: s.depth, PCTSteps: 200,
		Trace: &tr, Transcribe: true,
	}, body)
	evs, err := tr.Events()
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, e := range evs {
		fmt.Fprintf(h, "%+v\n", e)
	}
	rec, err := src.Recording().MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	msg := ""
	if out.Failure != nil {
		msg = out.Failure.Kind.String() + ": " + out.Failure.Message
	}
	if testing.Verbose() {
		t.Logf("%s/%#x: %d steps, %d switches, %d goroutines, failure %q", s.name, seed, out.Steps, out.Switches, out.Goroutines, msg)
	}
	fmt.Fprintf(h, "%x|%v|%d|%d|%d|%d|%s", rec, out.Transcript, out.Steps, out.Switches, out.Preemptions, out.Goroutines, msg)
	return fmt.Sprintf("%x", h.Sum(nil)[:8])
}

func TestDecisionsUnchanged(t *testing.T) {
	var got []string
	for _, w := range decisionWorkloads {
		for _, s := range decisionStrategies {
			for _, seed := range []uint64{1, 2, 0xfeed} {
				key := fmt.Sprintf("%s/%s/%#x", w.name, s.name, seed)
				d := decisionDigest(t, s, seed, w.body)
				got = append(got, fmt.Sprintf("\t%q: %q,", key, d))
				if want, ok := decisionDigests[key]; !ok || want != d {
					t.Errorf("%s: digest %s, want %s", key, d, want)
				}
			}
		}
	}
	if os.Getenv("DST_DECISIONS") == "print" {
		fmt.Println(strings.Join(got, "\n"))
	}
}

// decisionDigests were recorded from the previous implementation (see
// above); POS's were recorded again when a goroutine that yields started
// to go below every other under POS, a change of its decisions intended.
var decisionDigests = map[string]string{
	"fanin3/random/0x1":         "69d0e179f66cd223",
	"fanin3/random/0x2":         "099cf03fe00ef45d",
	"fanin3/random/0xfeed":      "22e30e993ab531b5",
	"fanin3/pct1/0x1":           "b6b5c0a82a1c442b",
	"fanin3/pct1/0x2":           "fe49229625967f01",
	"fanin3/pct1/0xfeed":        "ed3e40a1be91fdf3",
	"fanin3/pct3/0x1":           "32979744fa46cb54",
	"fanin3/pct3/0x2":           "76724ad413ee0aee",
	"fanin3/pct3/0xfeed":        "5440b611f27c75db",
	"fanin3/pct10/0x1":          "bcf12fff685e3af7",
	"fanin3/pct10/0x2":          "35971860b590a610",
	"fanin3/pct10/0xfeed":       "a532482db86b994d",
	"fanin3/pos/0x1":            "2155aaf1793a7ed8",
	"fanin3/pos/0x2":            "c73d538e22c18534",
	"fanin3/pos/0xfeed":         "1476473cd066170e",
	"fanin300/random/0x1":       "65648bba821e099b",
	"fanin300/random/0x2":       "4e4b72153d6379ad",
	"fanin300/random/0xfeed":    "605317849d9a3009",
	"fanin300/pct1/0x1":         "339a9fac43553cab",
	"fanin300/pct1/0x2":         "5db2f1ef2bd86063",
	"fanin300/pct1/0xfeed":      "381b6f018ff1fe63",
	"fanin300/pct3/0x1":         "304faa85f62c1a57",
	"fanin300/pct3/0x2":         "1068c751622dc227",
	"fanin300/pct3/0xfeed":      "1e049fbaa9fd948f",
	"fanin300/pct10/0x1":        "e5ffc9519680d1a4",
	"fanin300/pct10/0x2":        "5b6d70efeb8df55f",
	"fanin300/pct10/0xfeed":     "d99cdaec3e858a23",
	"fanin300/pos/0x1":          "91dd15e2502319fb",
	"fanin300/pos/0x2":          "8dbd1bffca5814f7",
	"fanin300/pos/0xfeed":       "67acd8fd1190be95",
	"mutex5/random/0x1":         "7c0bc4090e9ad770",
	"mutex5/random/0x2":         "5404d555b03103f8",
	"mutex5/random/0xfeed":      "4f73cea2bc59e481",
	"mutex5/pct1/0x1":           "419ef7120ebe6f16",
	"mutex5/pct1/0x2":           "4b40199f19b7f502",
	"mutex5/pct1/0xfeed":        "f9d88c03e34b8620",
	"mutex5/pct3/0x1":           "7ab0ebbda5d81dcc",
	"mutex5/pct3/0x2":           "5f69e389363177ca",
	"mutex5/pct3/0xfeed":        "cadfb62f6bfe0e94",
	"mutex5/pct10/0x1":          "55e54217f313074f",
	"mutex5/pct10/0x2":          "9d6ac70dc9d77a8a",
	"mutex5/pct10/0xfeed":       "2a4ff33a160adcb9",
	"mutex5/pos/0x1":            "1fde98e5ee04cd92",
	"mutex5/pos/0x2":            "8eb7c78393e47d11",
	"mutex5/pos/0xfeed":         "8430a119d7d81dde",
	"mutex70/random/0x1":        "65430d409af2483b",
	"mutex70/random/0x2":        "5168e6667d251677",
	"mutex70/random/0xfeed":     "91730f0a89eac9a4",
	"mutex70/pct1/0x1":          "7d45682d19998ace",
	"mutex70/pct1/0x2":          "2465d4919d1a4d41",
	"mutex70/pct1/0xfeed":       "5d6de5bdae98f1b2",
	"mutex70/pct3/0x1":          "f552abf4e15d5efc",
	"mutex70/pct3/0x2":          "6cac81c3fe1faf7b",
	"mutex70/pct3/0xfeed":       "5ee49d319b94a92d",
	"mutex70/pct10/0x1":         "13ba7b8a3ba17752",
	"mutex70/pct10/0x2":         "f5bb9f1db2b1bf1f",
	"mutex70/pct10/0xfeed":      "f1d7b06bcf41cf64",
	"mutex70/pos/0x1":           "dc913c743768fb2e",
	"mutex70/pos/0x2":           "d62caf3bf83971c6",
	"mutex70/pos/0xfeed":        "e566bf9e8b0982d9",
	"yield40/random/0x1":        "d9083b3d0b891d27",
	"yield40/random/0x2":        "702196e89e78415b",
	"yield40/random/0xfeed":     "a198db8e31ac72a6",
	"yield40/pct1/0x1":          "fdf3fd6b49f6f05a",
	"yield40/pct1/0x2":          "4997d16c3a8c311a",
	"yield40/pct1/0xfeed":       "0019875a3bff25dd",
	"yield40/pct3/0x1":          "bcc88478cd0188a4",
	"yield40/pct3/0x2":          "066a175259c76cd8",
	"yield40/pct3/0xfeed":       "7d991684a6203083",
	"yield40/pct10/0x1":         "d19d39f7393cd5e0",
	"yield40/pct10/0x2":         "fa7331f742872dd6",
	"yield40/pct10/0xfeed":      "f181330a0689a629",
	"yield40/pos/0x1":           "50ea9da295c9d1f1",
	"yield40/pos/0x2":           "7111a2796490bfb8",
	"yield40/pos/0xfeed":        "d724cb1250ef2278",
	"mix/random/0x1":            "d20fef05bda0ac51",
	"mix/random/0x2":            "fa44afbea539b36f",
	"mix/random/0xfeed":         "d344c3e16b5a38d6",
	"mix/pct1/0x1":              "78fd378e6c9cbbee",
	"mix/pct1/0x2":              "8ab1c1b48f1d5f98",
	"mix/pct1/0xfeed":           "4263c3377771d36f",
	"mix/pct3/0x1":              "0b654e4b59215d00",
	"mix/pct3/0x2":              "3f93f72bf6e99f3f",
	"mix/pct3/0xfeed":           "ce8175a60e46b8a6",
	"mix/pct10/0x1":             "d4b4caa45b605b57",
	"mix/pct10/0x2":             "46f8d683e6438179",
	"mix/pct10/0xfeed":          "0070ecb4a007608e",
	"mix/pos/0x1":               "041765fbe808858f",
	"mix/pos/0x2":               "fbfd834e13fa4e98",
	"mix/pos/0xfeed":            "029fade1edd3de13",
	"broadcast50/random/0x1":    "38077f587a058d9c",
	"broadcast50/random/0x2":    "4cd4dea97f2f9e86",
	"broadcast50/random/0xfeed": "1af7f1cc7dc6b89b",
	"broadcast50/pct1/0x1":      "b3daaa1493c7fdee",
	"broadcast50/pct1/0x2":      "11ec52c75d4229aa",
	"broadcast50/pct1/0xfeed":   "c92408ce098939ed",
	"broadcast50/pct3/0x1":      "d05ea7e96b913e07",
	"broadcast50/pct3/0x2":      "9ca2fda7d93720e3",
	"broadcast50/pct3/0xfeed":   "c262f018dad26a51",
	"broadcast50/pct10/0x1":     "6eeded654c20c3c7",
	"broadcast50/pct10/0x2":     "437e514ebd4d08d5",
	"broadcast50/pct10/0xfeed":  "c1a6472a89262214",
	"broadcast50/pos/0x1":       "d89713dbaf01aa40",
	"broadcast50/pos/0x2":       "df1821d550a369d2",
	"broadcast50/pos/0xfeed":    "ecb9deebd61c6da9",
	"timers30/random/0x1":       "d12ec330626fecf4",
	"timers30/random/0x2":       "63ff8e27f519deba",
	"timers30/random/0xfeed":    "523b7fe71e427d9e",
	"timers30/pct1/0x1":         "a25863737ac756e5",
	"timers30/pct1/0x2":         "738722d39495be7a",
	"timers30/pct1/0xfeed":      "cde8d4abfa14f2cc",
	"timers30/pct3/0x1":         "9f3d466dcb04f487",
	"timers30/pct3/0x2":         "1bfa0aa55d905e76",
	"timers30/pct3/0xfeed":      "4589ddfc2e4031be",
	"timers30/pct10/0x1":        "96a5bf08e9657093",
	"timers30/pct10/0x2":        "f023fd8b6f4b52b1",
	"timers30/pct10/0xfeed":     "899c16fdf203b927",
	"timers30/pos/0x1":          "b46397f18f6a8a7f",
	"timers30/pos/0x2":          "8eb84e4695d6c4d3",
	"timers30/pos/0xfeed":       "f4c922f6861e85ae",
	"deadlock/random/0x1":       "4fbfc043af2d9929",
	"deadlock/random/0x2":       "89f8b654eb883c5c",
	"deadlock/random/0xfeed":    "4468f653832f4051",
	"deadlock/pct1/0x1":         "52e5054f67ff56d0",
	"deadlock/pct1/0x2":         "78cc73bc606f80e1",
	"deadlock/pct1/0xfeed":      "87a4db93b7c2c39e",
	"deadlock/pct3/0x1":         "3198828edf7d94ee",
	"deadlock/pct3/0x2":         "85c13d40be8d0a75",
	"deadlock/pct3/0xfeed":      "de8eca3b28880759",
	"deadlock/pct10/0x1":        "4dcc53cfef59ed03",
	"deadlock/pct10/0x2":        "1522aa7b5b6a2b21",
	"deadlock/pct10/0xfeed":     "d6e0719a7d6c9323",
	"deadlock/pos/0x1":          "e0583ebb91942edf",
	"deadlock/pos/0x2":          "f52c91ee05a6d298",
	"deadlock/pos/0xfeed":       "61f6516c70018eb5",
}
