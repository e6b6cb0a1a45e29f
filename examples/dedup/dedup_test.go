package dedup_test

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/examples/dedup"
	"github.com/dstgo/dst/internal/cli"
	"github.com/dstgo/dst/internal/testutil"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/vtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The failure messages of the checkers; TestFindsBothBugs tells the bugs
// apart by them.
const (
	wrongContent = "restore returned wrong content"
	leakedRef    = "leaked reference"
	noProgress   = "no progress"
)

// Attempts per job while faults fire (a job may give up), and once they
// have stopped (a job must succeed).
const (
	faultyAttempts   = 3
	progressAttempts = 3
)

// contents are the values the objects take: few, so that backups often
// share content and deduplicate.
var contents = []string{"the quick brown fox", "jumps over the lazy dog"}

var objects = []string{"vm-a", "vm-b"}

// job is one backup that the workload takes through its life: back it up,
// then either delete it (doomed) or restore it and check what comes back.
type job struct {
	backup  dedup.BackupJob
	doomed  bool
	snap    dedup.Snapshot
	backed  bool  // the backup succeeded: snap is valid
	deleted bool  // the deletion succeeded
	err     error // why the job has not finished
}

// done reports whether the job has nothing left to do but be restored.
func (j *job) done() bool { return j.backed && (!j.doomed || j.deleted) }

// advance runs the job's next steps, each retried up to attempts times, and
// logs what happened (the log is shown when the run fails).
func (j *job) advance(t *schedtest.T, s *dedup.Store, src *dedup.Source, attempts int) {
	if !j.backed {
		j.err = dedup.Retry(attempts, func() error {
			snap, err := s.Backup(src, &j.backup)
			j.snap = snap
			return err
		})
		if j.err != nil {
			t.Logf("%s: backup of %s gave up: %v", j.backup.ID, j.backup.Object, j.err)
			return
		}
		j.backed = true
		t.Logf("%s: backed up %s version %d in row %v", j.snap.ID, j.snap.Object, j.snap.Version, j.snap.Row)
	}
	if j.doomed && !j.deleted {
		j.err = dedup.Retry(attempts, func() error { return s.Delete(j.snap) })
		j.deleted = j.err == nil
		if j.deleted {
			t.Logf("%s: deleted", j.snap.ID)
		} else {
			t.Logf("%s: deletion gave up: %v", j.snap.ID, j.err)
		}
	}
}

// checkRestore restores the backup snap, retrying up to attempts times, and
// fails the run if the store returns content other than the version it
// backed up, or says that content is lost. It returns the restore's error
// if every attempt failed for another reason.
func checkRestore(t *schedtest.T, s *dedup.Store, src *dedup.Source, snap dedup.Snapshot, attempts int) error {
	var got []byte
	var lost error
	err := dedup.Retry(attempts, func() error {
		data, err := s.Restore(snap)
		if errors.Is(err, dedup.ErrLost) {
			lost = err
			return nil
		}
		got = data
		return err
	})
	if err != nil {
		return err
	}
	want, ok := src.Version(snap.Object, snap.Version)
	switch {
	case !ok:
		t.Errorf("backup %s holds %s version %d, which the source never had", snap.ID, snap.Object, snap.Version)
	case lost != nil:
		t.Errorf("%s: backup %s of %s version %d: %v", wrongContent, snap.ID, snap.Object, snap.Version, lost)
	case !bytes.Equal(got, want):
		t.Errorf("%s: backup %s of %s version %d: got %q, want %q", wrongContent, snap.ID, snap.Object, snap.Version, got, want)
	}
	return nil
}

// checkReferences is the white-box check of the index: every reference
// names a live backup (one that succeeded and was not deleted), and no
// backup is referenced twice.
func checkReferences(t *schedtest.T, db *dedup.DB, jobs []*job) {
	live := map[string]bool{}
	for _, j := range jobs {
		if j.backed && !j.doomed {
			live[j.backup.ID] = true
		}
	}
	rows := map[string][]string{}
	var ids []string
	for _, r := range db.Rows() {
		t.Logf("index: row %v, file %s, references %v", r.Key, r.File, r.Refs)
		for _, id := range r.Refs {
			if rows[id] == nil {
				ids = append(ids, id)
			}
			rows[id] = append(rows[id], r.Key.String())
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		switch {
		case !live[id]:
			t.Errorf("%s: %s, not a live backup, is referenced by row %s", leakedRef, id, strings.Join(rows[id], ", "))
		case len(rows[id]) > 1:
			t.Errorf("%s: backup %s is referenced by %d rows: %s", leakedRef, id, len(rows[id]), strings.Join(rows[id], ", "))
		}
	}
}

// workload runs concurrent backup, delete, restore and garbage collection
// jobs against the store that newStore builds, while the universe injects
// faults and the objects change; then it stops the faults and checks
// progress (every job finishes, every restore succeeds) and correctness
// (restores return what was backed up, and no reference leaks).
func workload(newStore func(*dedup.DB, *dedup.Files) *dedup.Store) func(*schedtest.T) {
	return func(t *schedtest.T) {
		e := t.Entropy()
		db, files, src := dedup.NewDB(), dedup.NewFiles(), dedup.NewSource()
		s := newStore(db, files)
		for _, o := range objects {
			src.Write(o, []byte(contents[e.Choice(len(contents))]))
		}
		jobs := make([]*job, e.IntRange(3, 4))
		for i := range jobs {
			jobs[i] = &job{
				backup: dedup.BackupJob{ID: fmt.Sprintf("b%d", i), Object: objects[e.Choice(len(objects))]},
				doomed: e.Bool(0.3),
			}
		}

		var wg sched.WaitGroup
		wg.Go(func() { // the objects change
			for range 2 {
				vtime.Sleep(time.Duration(e.IntRange(1, 10)) * 100 * time.Millisecond)
				src.Write(objects[e.Choice(len(objects))], []byte(contents[e.Choice(len(contents))]))
			}
		})
		wg.Go(func() { // the garbage collector
			for range 3 {
				vtime.Sleep(700 * time.Millisecond)
				_ = s.GC() // a failed pass is retried by the next one
			}
		})
		for _, j := range jobs {
			wg.Go(func() {
				vtime.Sleep(time.Duration(e.IntRange(0, 3)) * 100 * time.Millisecond)
				j.advance(t, s, src, faultyAttempts)
				if j.backed && !j.doomed {
					_ = checkRestore(t, s, src, j.snap, faultyAttempts) // faults may stop it
				}
			})
		}
		wg.Wait()

		// Progress: once faults stop, everything must succeed.
		sched.StopFaults()
		t.Log("faults stopped")
		for _, j := range jobs {
			if !j.done() {
				j.advance(t, s, src, progressAttempts)
				if !j.done() {
					t.Errorf("%s: job %s still fails after faults stopped: %v", noProgress, j.backup.ID, j.err)
				}
			}
		}
		if err := dedup.Retry(progressAttempts, s.GC); err != nil {
			t.Errorf("%s: garbage collection still fails after faults stopped: %v", noProgress, err)
		}
		// Correctness: every backup that was kept restores to what it
		// backed up, and the index holds no leaked reference.
		for _, j := range jobs {
			if j.backed && !j.doomed {
				if err := checkRestore(t, s, src, j.snap, progressAttempts); err != nil {
					t.Errorf("%s: restore of %s still fails after faults stopped: %v", noProgress, j.snap.ID, err)
				}
			}
		}
		checkReferences(t, db, jobs)
	}
}

func options(iters int) schedtest.Options {
	return schedtest.Options{Iterations: iters, Faults: dedup.Faults()}
}

// TestBuggyStore is the demo: it explores the buggy store and fails with a
// report of the first bug found, the command that reproduces it, and the
// trace it saved. It runs only when asked, so that the test suite passes:
//
//	DST_DEMO=1 go test ./examples/dedup -run TestBuggyStore
func TestBuggyStore(t *testing.T) {
	testutil.Demo(t)
	schedtest.TestWith(t, options(1000), workload(dedup.NewBuggy))
}

// TestFixedStore explores the fixed store; every schedule passes.
func TestFixedStore(t *testing.T) {
	schedtest.TestWith(t, options(2000), workload(dedup.NewFixed))
}

// TestFindsBothBugs checks, without failing the suite, that exploring the
// buggy store finds both bugs unaided, each as a failing run of its own
// whose trace can be saved.
func TestFindsBothBugs(t *testing.T) {
	found := map[string]*schedtest.Result{}
	runs := map[string]int{}
	total := 0
	for seed := uint64(1); seed <= 40 && len(found) < 2; seed++ {
		opts := options(500)
		opts.Seed = seed
		res, err := schedtest.Explore(opts, workload(dedup.NewBuggy))
		if err != nil {
			t.Fatal(err)
		}
		total += res.Schedule
		if res.Failure == nil {
			continue
		}
		var bug string
		switch msg := res.Failure.Message; {
		case strings.Contains(msg, wrongContent):
			bug = wrongContent
		case strings.Contains(msg, leakedRef):
			bug = leakedRef
		default:
			t.Fatalf("seed %d: the buggy store failed in an unexpected way: %s", seed, res.Failure.Error())
		}
		if found[bug] == nil {
			found[bug], runs[bug] = res, total
		}
	}
	for _, bug := range []string{leakedRef, wrongContent} {
		res := found[bug]
		if res == nil {
			t.Errorf("no run of the buggy store failed with %q", bug)
			continue
		}
		t.Logf("%q found after %d schedules in all (schedule seed %#x): %s", bug, runs[bug], res.Seed, res.Failure.Message)
		path := filepath.Join(t.TempDir(), strings.ReplaceAll(bug, " ", "-")+".trace")
		if err := res.WriteTrace(path); err != nil {
			t.Errorf("saving the trace of %q: %v", bug, err)
			continue
		}
		// dstreplay reads it, and replaying it fails the same way.
		var out, errb bytes.Buffer
		if code := cli.Main([]string{"summary", path}, &out, &errb); code != cli.ExitOK || !strings.Contains(out.String(), bug) {
			t.Errorf("dstreplay summary of the %q trace: exit %d\n%s%s", bug, code, out.String(), errb.String())
		}
		again, err := schedtest.Replay(path, workload(dedup.NewBuggy))
		if err != nil || again.Failure == nil || again.Failure.Message != res.Failure.Message {
			t.Errorf("replaying the %q trace: %v, %v", bug, err, again.Failure)
		}
	}
}

// TestFaultsFire is the sanity check the post recommends: the fixed store
// passes runs in which the ambiguous failures it guards against did happen,
// a reference added and a row inserted by calls that timed out.
func TestFaultsFire(t *testing.T) {
	want := []string{"db.addref.applied", "db.insert.applied"}
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 50 && len(seen) < len(want); seed++ {
		opts := options(1)
		opts.Seed = seed
		res, err := schedtest.Run(opts, workload(dedup.NewFixed))
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure != nil {
			t.Fatalf("seed %d: the fixed store failed: %s", seed, res.Failure.Error())
		}
		for _, f := range res.Faults {
			name, _, _ := strings.Cut(f, " ")
			if slices.Contains(want, name) {
				seen[name] = true
			}
		}
	}
	for _, name := range want {
		if !seen[name] {
			t.Errorf("fault %s never fired in a passing run of the fixed store", name)
		}
	}
}
