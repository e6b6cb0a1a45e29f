package hunt_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/engine"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/gotest"
	"github.com/dstgo/dst/internal/hunt"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/trace"
)

var (
	crChoice = entropy.MakeUID(entropy.KindChoice, entropy.KeyOf("crash-test-choice"))
	crBytes  = entropy.MakeUID(entropy.KindBytes, entropy.KeyOf("crash-test-bytes"))
)

func crInput(seed uint64, n int) hunt.Input {
	rec := &entropy.Recording{Values: []entropy.Value{{UID: crBytes, V: 3}}, Data: []byte("abc")}
	for i := range n {
		rec.Values = append(rec.Values, entropy.Value{UID: crChoice, V: uint64(i) * 0x9e3779b97f4a7c15})
	}
	return hunt.Input{Strategy: engine.PCT, Depth: 3, PCTSteps: 100, Seed: seed, Recording: rec}
}

func readCurrent(t *testing.T, dir string, worker int, want hunt.Input) {
	t.Helper()
	got, err := hunt.ReadCurrent(dir, worker)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ReadCurrent = %d values, seed %#x; want %d values, seed %#x", got.Recording.Len(), got.Seed, want.Recording.Len(), want.Seed)
	}
}

func TestCurrentRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus") // OpenCurrent creates it
	c, err := hunt.OpenCurrent(dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if p := hunt.CurrentPath(dir, 3); p != filepath.Join(dir, ".worker-3.cur") {
		t.Errorf("CurrentPath = %s", p)
	}
	if _, err := hunt.ReadCurrent(dir, 3); !errors.Is(err, hunt.ErrBadInput) {
		t.Errorf("ReadCurrent before any Set: %v, want ErrBadInput", err)
	}
	long, short := crInput(1, 1000), crInput(2, 3)
	// Larger than the mapping: written with pwrite.
	huge := crInput(3, 320_000)
	if text, _ := huge.MarshalText(); len(text) <= 4<<20 {
		t.Fatalf("the huge input is only %d bytes", len(text))
	}
	for _, in := range []hunt.Input{long, short, huge, short, long} {
		if err := c.Set(in); err != nil {
			t.Fatal(err)
		}
		readCurrent(t, dir, 3, in)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	readCurrent(t, dir, 3, long) // the file outlives the process's hold on it

	// Another worker's file is its own.
	if _, err := hunt.ReadCurrent(dir, 4); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadCurrent of a worker that never ran: %v, want ErrNotExist", err)
	}
	// Opening it again starts afresh.
	c2, err := hunt.OpenCurrent(dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if _, err := hunt.ReadCurrent(dir, 3); !errors.Is(err, hunt.ErrBadInput) {
		t.Errorf("ReadCurrent after OpenCurrent: %v, want ErrBadInput", err)
	}
}

// The current-input file's header is three little-endian uint32s: magic,
// length and CRC-32 of the text that follows.
func TestCurrentCorrupt(t *testing.T) {
	dir := t.TempDir()
	in := crInput(7, 20)
	text, _ := in.MarshalText()
	path := hunt.CurrentPath(dir, 0)
	setup := func() {
		t.Helper()
		c, err := hunt.OpenCurrent(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Set(in); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		readCurrent(t, dir, 0, in)
	}
	patch := func(off int64, b []byte) {
		t.Helper()
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt(b, off); err != nil {
			t.Fatal(err)
		}
	}
	u32 := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	for _, c := range []struct {
		name  string
		off   int64
		patch []byte
		want  string
	}{
		{"bad checksum", 8, u32(0x12345678), "checksum"},
		{"a byte of the text", 12 + int64(len(text))/2, []byte{'#'}, "checksum"},
		{"zero length", 4, u32(0), "length 0"},
		{"length past the end", 4, u32(1 << 30), "does not fit"},
		{"bad magic", 0, u32(0), "no input recorded"},
	} {
		t.Run(c.name, func(t *testing.T) {
			setup()
			patch(c.off, c.patch)
			_, err := hunt.ReadCurrent(dir, 0)
			if !errors.Is(err, hunt.ErrBadInput) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("ReadCurrent = %v, want ErrBadInput naming %s and saying %q", err, path, c.want)
			}
		})
	}
	t.Run("checksummed garbage", func(t *testing.T) {
		setup()
		bad := []byte("dst-input 1 strategy=hunt\ne1\n")
		var h [12]byte
		binary.LittleEndian.PutUint32(h[0:], 0x64737463)
		binary.LittleEndian.PutUint32(h[4:], uint32(len(bad)))
		binary.LittleEndian.PutUint32(h[8:], crc32IEEE(bad))
		patch(12, bad)
		patch(0, h[:])
		if _, err := hunt.ReadCurrent(dir, 0); !errors.Is(err, hunt.ErrBadInput) || !strings.Contains(err.Error(), "strategy") {
			t.Errorf("ReadCurrent of a whole but invalid input = %v, want ErrBadInput", err)
		}
	})
	t.Run("short file", func(t *testing.T) {
		if err := os.WriteFile(path, []byte("dst"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := hunt.ReadCurrent(dir, 0); !errors.Is(err, hunt.ErrBadInput) {
			t.Errorf("ReadCurrent of a 3-byte file = %v, want ErrBadInput", err)
		}
	})
}

func crc32IEEE(b []byte) uint32 {
	// hash/crc32's IEEE table, computed here so that the test states the
	// file format rather than borrowing the code under test.
	crc := ^uint32(0)
	for _, c := range b {
		crc ^= uint32(c)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0xedb88320
			} else {
				crc >>= 1
			}
		}
	}
	return ^crc
}

func TestRecoverCrash(t *testing.T) {
	corpus, fails := t.TempDir(), t.TempDir()
	in := crInput(9, 50)
	c, err := hunt.OpenCurrent(corpus, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Set(crInput(1, 5)); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(in); err != nil {
		t.Fatal(err)
	}
	// The process dies here: the mapping is never closed.

	const test = "TestStore/a+b"
	output := []byte("fatal error: concurrent map writes\n\ngoroutine 7 [running]:\n")
	path, err := hunt.RecoverCrash(corpus, 2, fails, test, output)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := in.MarshalText()
	sum := sha256.Sum256(text)
	want := filepath.Join(fails, "TestStore_a+b", "crash-"+hex.EncodeToString(sum[:8])+".input")
	if path != want {
		t.Errorf("RecoverCrash saved %s, want %s", path, want)
	}
	got, err := hunt.ReadInput(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Errorf("the saved input is not the one running: %+v", got)
	}
	note, err := os.ReadFile(strings.TrimSuffix(path, ".input") + ".txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		string(output),
		"-dst.input=" + path,
		"go test -count=1 -run '" + gotest.RunPattern(test) + "' -dst.input=" + path,
	} {
		if !bytes.Contains(note, []byte(s)) {
			t.Errorf("the note does not contain %q:\n%s", s, note)
		}
	}
	c.Close()

	// Recovering it again overwrites the same files.
	if again, err := hunt.RecoverCrash(corpus, 2, fails, test, output); err != nil || again != path {
		t.Errorf("a second RecoverCrash: %s, %v", again, err)
	}
	// A worker that recorded nothing: an error, and nothing saved.
	if _, err := hunt.RecoverCrash(corpus, 5, fails, "TestOther", nil); err == nil {
		t.Error("RecoverCrash without a current-input file succeeded")
	}
	if _, err := os.Stat(filepath.Join(fails, "TestOther")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed recovery left %v", err)
	}
}

// huntBody is the body the killed hunts explore: three goroutines append
// their names to a log under a mutex, four times each. Each prefix of the
// log is a reach mark, so the corpus keeps growing for a while; a log
// starting "cbaca" is a bug, found in some hundreds of runs.
func huntBody(t *schedtest.T) {
	var mu sched.Mutex
	var wg sched.WaitGroup
	var log []byte
	for g := range 3 {
		wg.Go(func() {
			for range 4 {
				mu.Lock()
				log = append(log, byte('a'+g))
				if len(log) <= 7 {
					sched.Reach(string(log))
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if string(log[:5]) == "cbaca" {
		t.Fatalf("the log starts %s", log[:5])
	}
}

const helperEnv = "FUZZLOOP_TEST_HELPER_HUNT"

// TestHelperHunt is the worker process TestKillHunt starts and kills: a
// hunt of huntBody with the corpus directory, worker number, -dst.keepgoing
// and DST_DIR the parent gives. Each child runs its own subtest, so that it
// does not replay the failures an earlier child saved and stop.
func TestHelperHunt(t *testing.T) {
	child := os.Getenv(helperEnv)
	if child == "" {
		t.Skip("the helper process of TestKillHunt")
	}
	seed, err := strconv.ParseUint(child, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("child"+child, func(t *testing.T) {
		opts := schedtest.Options{Strategy: "hunt", Seed: 1 + seed, Iterations: 1 << 30, Time: time.Minute}
		schedtest.TestWith(t, opts, huntBody)
	})
}

// TestKillHunt: kill a hunt with SIGKILL mid-run, three times at different
// moments, each a fresh process over the same directories: no saved
// failure or corpus entry is lost or corrupt, and each new process loads
// the corpus the killed ones left.
func TestKillHunt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills hunting processes")
	}
	corpus, fails := t.TempDir(), t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	traces, inputs, cover := 0, 0, 0
	for child := range 3 {
		// Each child is killed a random time after a moment of its own:
		// the first once it has saved a failure, so that there is one to
		// check; the second once it has loaded the corpus; the third once
		// it has hunted for a second after that.
		delay := time.Duration(rng.IntN(800)) * time.Millisecond
		h := startHunt(t, corpus, fails, child)
		h.waitUntil(t, func() bool {
			switch child {
			case 0:
				return h.failures() > 0 && countFiles(t, corpus, ".input") >= 3
			case 1:
				return h.progress() > 0
			}
			return h.progress() > 1
		})
		time.Sleep(delay)
		first, last := h.kill(t)
		t.Logf("child %d: killed %v after its moment; its first progress line %+v, its last %+v", child, delay, first, last)
		// It loaded the corpus the killed children left, running every
		// input (Sync counts them as executions) and reaching at least
		// the coverage they had.
		if first.Execs < inputs || first.Cover < cover {
			t.Errorf("child %d did not load the corpus of %d inputs and %d features: its first progress line is %+v", child, inputs, cover, first)
		}
		cover = last.Cover

		inputs = checkCorpus(t, corpus)
		traces = checkFailures(t, fails)
		t.Logf("child %d left %d corpus inputs and %d saved failures", child, inputs, traces)
		checkCurrent(t, corpus)
	}
	if traces == 0 {
		t.Error("no failure was saved: the check of saved failures checked nothing")
	}
}

// hunter is a hunting child process.
type hunter struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	mu     sync.Mutex
	lines  []string // of stdout
	status []huntStatus
	fails  int
	done   chan struct{} // closed when stdout ends
}

// huntStatus is a worker's progress line, dst-hunt {...}.
type huntStatus struct {
	Execs, Corpus, Cover, Failures int
}

func startHunt(t *testing.T, corpus, fails string, child int) *hunter {
	t.Helper()
	h := &hunter{done: make(chan struct{})}
	h.cmd = exec.Command(os.Args[0], "-test.run=^TestHelperHunt$", "-test.v",
		"-dst.corpus="+corpus, "-dst.worker=0", "-dst.keepgoing")
	h.cmd.Env = append(os.Environ(), helperEnv+"="+strconv.Itoa(child), "DST_DIR="+fails)
	h.cmd.Stderr = &h.stderr
	out, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.cmd.Process.Kill() })
	go func() {
		defer close(h.done)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			h.mu.Lock()
			h.lines = append(h.lines, line)
			if rest, ok := strings.CutPrefix(line, "dst-hunt "); ok {
				var st huntStatus
				if err := json.Unmarshal([]byte(rest), &st); err == nil {
					h.status = append(h.status, st)
				} else {
					h.lines = append(h.lines, "(not a progress line: "+err.Error()+")")
				}
			}
			if strings.HasPrefix(line, "dst-hunt-failure ") {
				h.fails++
			}
			h.mu.Unlock()
		}
	}()
	return h
}

// progress is the number of progress lines the child has printed.
func (h *hunter) progress() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.status)
}

func (h *hunter) failures() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.fails
}

func (h *hunter) output() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.lines, "\n") + "\n" + h.stderr.String()
}

// waitUntil polls cond for up to 20 seconds; the child must not exit
// meanwhile.
func (h *hunter) waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		select {
		case <-h.done:
			h.cmd.Wait()
			t.Fatalf("the hunting child exited before it was killed:\n%s", h.output())
		default:
		}
		if time.Now().After(deadline) {
			h.cmd.Process.Kill()
			<-h.done
			h.cmd.Wait()
			t.Fatalf("the hunting child did not get going in 20s:\n%s", h.output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill SIGKILLs the child and returns its first and last progress lines.
func (h *hunter) kill(t *testing.T) (first, last huntStatus) {
	t.Helper()
	if err := h.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-h.done
	err := h.cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Exited() {
		t.Fatalf("the child was not killed by the signal (%v):\n%s", err, h.output())
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.status) == 0 {
		t.Fatalf("the child printed no progress line:\n%s", strings.Join(h.lines, "\n"))
	}
	return h.status[0], h.status[len(h.status)-1]
}

func countFiles(t *testing.T, dir, suffix string) int {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), suffix) && !strings.HasPrefix(e.Name(), ".tmp-") {
			n++
		}
	}
	return n
}

// checkCorpus checks that every input in the corpus directory reads back,
// under the name of its contents, and that nothing else is there but
// temporary files and the worker's current-input file.
func checkCorpus(t *testing.T, dir string) int {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, ".tmp-"), name == ".worker-0.cur":
		case strings.HasSuffix(name, ".input"):
			n++
			path := filepath.Join(dir, name)
			in, err := hunt.ReadInput(path)
			if err != nil {
				t.Errorf("a corpus input is corrupt: %v", err)
				continue
			}
			text, _ := in.MarshalText()
			sum := sha256.Sum256(text)
			if want := hex.EncodeToString(sum[:8]) + ".input"; name != want {
				t.Errorf("%s holds the input named %s", path, want)
			}
		default:
			t.Errorf("an unexpected file in the corpus directory: %s", name)
		}
	}
	if n == 0 {
		t.Error("the corpus directory holds no input")
	}
	return n
}

// checkFailures checks every saved failure: each trace is whole and
// replays to the same failure, and each input beside it reads back.
func checkFailures(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		switch {
		case strings.HasPrefix(name, ".tmp-"):
		case strings.HasSuffix(name, ".trace"):
			n++
			checkTrace(t, path)
			input := strings.TrimSuffix(path, ".trace") + ".input"
			if _, err := os.Stat(input); err == nil {
				if _, err := hunt.ReadInput(input); err != nil {
					t.Errorf("a saved failure's input is corrupt: %v", err)
				}
			}
		case strings.HasSuffix(name, ".input"):
			if _, err := hunt.ReadInput(path); err != nil {
				t.Errorf("a saved input is corrupt: %v", err)
			}
		default:
			t.Errorf("an unexpected file among the saved failures: %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func checkTrace(t *testing.T, path string) {
	t.Helper()
	r, err := trace.OpenFile(path)
	if err != nil {
		t.Errorf("a saved failure does not open: %v", err)
		return
	}
	defer r.Close()
	if r.Truncated != nil || r.Outcome == nil {
		t.Errorf("%s is cut short: %v", path, r.Truncated)
		return
	}
	if r.Outcome.Kind == "pass" || !strings.Contains(r.Outcome.Message, "cbaca") {
		t.Errorf("%s records the outcome %q: %q", path, r.Outcome.Kind, r.Outcome.Message)
	}
	evs, err := r.ReadAll()
	if err != nil || len(evs) == 0 {
		t.Errorf("%s: %d events: %v", path, len(evs), err)
	}
	res, err := schedtest.Replay(path, huntBody)
	if err != nil {
		t.Errorf("replaying %s: %v", path, err)
	} else if res.Failure == nil {
		t.Errorf("%s replays without failing", path)
	}
}

// checkCurrent checks the killed worker's current-input file: it reads
// back whole, or is recognizably cut short (the worker died while writing
// it), and a whole one is recovered as a crash.
func checkCurrent(t *testing.T, corpus string) {
	t.Helper()
	in, err := hunt.ReadCurrent(corpus, 0)
	if err != nil {
		if !errors.Is(err, hunt.ErrBadInput) {
			t.Error(err)
		}
		t.Logf("the current input was being written: %v", err)
		return
	}
	crashes := t.TempDir()
	path, err := hunt.RecoverCrash(corpus, 0, crashes, "TestHelperHunt", []byte("killed"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := hunt.ReadInput(path); err != nil || !reflect.DeepEqual(got, in) {
		t.Errorf("the recovered crash reads back as %+v, %v", got, err)
	}
}

// A hunt killed while saving a failure leaves its temporary trace file; the
// next go test of that test must not take it for a saved failure.
func TestSavedFailuresIgnoreTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DST_DIR", dir)
	tdir := filepath.Join(dir, t.Name())
	if err := os.MkdirAll(tdir, 0o755); err != nil {
		t.Fatal(err)
	}
	// What writeTrace leaves when killed between creating its temporary
	// file and renaming it.
	if err := os.WriteFile(filepath.Join(tdir, ".tmp-123456.trace"), []byte("dst"), 0o644); err != nil {
		t.Fatal(err)
	}
	schedtest.TestWith(t, schedtest.Options{Iterations: 5, Seed: 1}, func(*schedtest.T) {})
}
