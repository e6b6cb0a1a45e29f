package simdisk_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simdisk"
)

// TestCrashModel runs random programs of appends, writes in place, syncs
// and crashes on a file, drawn from the entropy, and checks each crash
// against a model of what a disk keeps: what was synced, and of what was
// appended since, a prefix; nothing of a write in place that was not
// synced. Over the programs, crashes keep all, none and parts of what was
// appended.
func TestCrashModel(t *testing.T) {
	dir := t.TempDir()
	kept := map[string]bool{}
	res, err := schedtest.Explore(schedtest.Options{Seed: 11, Iterations: 300}, func(st *schedtest.T) {
		path := filepath.Join(dir, "data")
		os.Remove(path)
		if err := simdisk.WriteFile(path, nil, 0o644); err != nil {
			st.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			st.Fatal(err)
		}
		var durable, cur []byte
		for step := 0; step < 12; step++ {
			switch st.Entropy().IntRange(0, 4) {
			case 0, 1: // append
				b := bytes.Repeat([]byte{byte('a' + step)}, 1+st.Entropy().IntRange(0, 5))
				if _, err := simdisk.WriteAt(f, b, int64(len(cur))); err != nil {
					st.Fatal(err)
				}
				cur = append(cur, b...)
			case 2: // write in place
				if len(cur) == 0 {
					continue
				}
				off := st.Entropy().IntRange(0, len(cur)-1)
				simdisk.WriteAt(f, []byte{'#'}, int64(off))
				cur[off] = '#'
			case 3:
				if err := simdisk.Sync(f); err != nil {
					st.Fatal(err)
				}
				durable = bytes.Clone(cur)
			case 4:
				f.Close()
				if err := simdisk.Crash(dir); err != nil {
					st.Fatal(err)
				}
				got, _ := os.ReadFile(path)
				tail, appended := bytes.CutPrefix(cur, durable)
				switch {
				case appended && (!bytes.HasPrefix(got, durable) || !bytes.HasPrefix(cur, got)):
					st.Fatalf("after a crash the file holds %q: want %q (synced) and a prefix of %q", got, durable, tail)
				case !appended && !bytes.Equal(got, durable):
					st.Fatalf("after a crash the file holds %q: want %q, as synced (%q was written in place since)", got, durable, cur)
				}
				if appended && len(tail) > 0 {
					switch len(got) - len(durable) {
					case 0:
						kept["none"] = true
					case len(tail):
						kept["all"] = true
					default:
						kept["part"] = true
					}
				}
				durable, cur = got, bytes.Clone(got)
				if f, err = os.OpenFile(path, os.O_RDWR, 0); err != nil {
					st.Fatal(err)
				}
			}
		}
		f.Close()
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	for _, k := range []string{"none", "all", "part"} {
		if !kept[k] {
			t.Errorf("no crash kept %s of what was appended since the sync, in 300 programs: %v", k, kept)
		}
	}
}

// TestCrashFindsAckBeforeSync: a log that acknowledges an append before it
// syncs it (the sync runs in a goroutine of its own) loses an acknowledged
// record when the machine crashes between the two, and the scheduler finds
// that order; the log that syncs first never does.
func TestCrashFindsAckBeforeSync(t *testing.T) {
	for _, fixed := range []bool{false, true} {
		dir := t.TempDir()
		res, err := schedtest.Explore(schedtest.Options{Seed: 5, Iterations: 200}, func(st *schedtest.T) {
			path := filepath.Join(dir, "log")
			os.Remove(path)
			f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
			if err != nil {
				st.Fatal(err)
			}
			var wg sched.WaitGroup
			appendRecord := func(r string) { // returns once the record is acknowledged
				simdisk.WriteString(f, r+"\n")
				if fixed {
					simdisk.Sync(f)
					return
				}
				wg.Add(1)
				sched.Go(func() { defer wg.Done(); simdisk.Sync(f) })
			}
			appendRecord("x=1")
			simdisk.Crash(dir) // the power goes once x=1 is acknowledged
			wg.Wait()
			f.Close()
			if b, _ := os.ReadFile(path); !strings.Contains(string(b), "x=1\n") {
				st.Fatalf("the acknowledged record x=1 is lost: the log holds %q", b)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Failure != nil; got == fixed {
			t.Errorf("fixed=%v: failure %v", fixed, res.Failure)
		} else if logs := strings.Join(res.Logs, "\n"); !fixed && !strings.Contains(logs, "simdisk: crash: ") {
			t.Errorf("the log does not say what the crash did:\n%s", logs)
		}
	}
}

// TestCrashLeavesBigFiles: a file larger than MaxTracked is not read at
// each sync, and a crash leaves it as it is, saying so; a small one beside
// it loses what was not synced.
func TestCrashLeavesBigFiles(t *testing.T) {
	dir := t.TempDir()
	big, small := filepath.Join(dir, "big"), filepath.Join(dir, "small")
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(st *schedtest.T) {
		for _, p := range []string{big, small} {
			f, err := os.Create(p)
			if err != nil {
				st.Fatal(err)
			}
			if p == big {
				simdisk.Write(f, make([]byte, simdisk.MaxTracked+1))
			}
			simdisk.Write(f, []byte("synced"))
			simdisk.Sync(f)
			simdisk.Write(f, []byte(", not synced"))
			f.Close()
		}
		if err := simdisk.Crash(dir); err != nil {
			st.Fatal(err)
		}
		if fi, _ := os.Stat(big); fi.Size() != simdisk.MaxTracked+1+int64(len("synced, not synced")) {
			st.Errorf("the big file: %d bytes", fi.Size())
		}
		if b, _ := os.ReadFile(small); string(b) != "synced" && !strings.HasPrefix(string(b), "synced,") {
			st.Errorf("the small file: %q", b)
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	if !strings.Contains(strings.Join(res.Logs, "\n"), "is larger than") {
		t.Errorf("the log: %q", res.Logs)
	}
}
