package simdisk_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simdisk"
	"github.com/dstgo/dst/vtime"
)

// osHooked reports whether this test binary's package os hands its writes
// to simdisk (internal/rewrite/ossim.go). internal/rewrite's TestOSHooks
// runs these tests with the hooks, and sets DST_OS_HOOKED=1: then they must
// be there.
func osHooked(t *testing.T) bool {
	_, ok := any((*os.File)(nil)).(interface{ DstreplayWrite([]byte) (int, error) })
	if !ok && os.Getenv("DST_OS_HOOKED") == "1" {
		t.Fatal("DST_OS_HOOKED=1, but package os has no hooks")
	}
	return ok
}

// TestThroughOS: with the hooks, writes that do not call simdisk (through
// a bufio.Writer, fmt.Fprintf, io.Copy) meet the faults and are known to
// Crash, and os.Create's truncation is undone by a crash before a sync;
// the standard streams meet no fault. Without them, those writes reach the
// file as written.
func TestThroughOS(t *testing.T) {
	on := osHooked(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "data")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := schedtest.Run(schedtest.Options{Seed: 1, Faults: map[string]float64{simdisk.FaultEIO: 1}}, func(st *schedtest.T) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			st.Fatal(err)
		}
		defer f.Close()
		w := bufio.NewWriter(f)
		w.WriteString("buffered")
		failed := map[string]error{"bufio": w.Flush()}
		_, failed["fmt"] = fmt.Fprintf(f, "%d", 42)
		_, failed["io.Copy"] = io.Copy(f, strings.NewReader("copied"))
		failed["sync"] = f.Sync()
		for what, err := range failed {
			if eio := errors.Is(err, syscall.EIO); eio != on {
				st.Errorf("%s: %v, want EIO %v", what, err, on)
			}
		}
		if _, err := fmt.Fprint(os.Stdout, ""); err != nil {
			st.Errorf("the standard output failed: %v", err)
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}

	// A crash: what was written through bufio and not synced is lost; a
	// truncation that was not synced is undone.
	res, err = schedtest.Run(schedtest.Options{Seed: 1}, func(st *schedtest.T) {
		f, err := os.Create(path) // truncates "old"
		if err != nil {
			st.Fatal(err)
		}
		w := bufio.NewWriter(f)
		w.WriteString("new, never synced")
		if err := w.Flush(); err != nil {
			st.Fatal(err)
		}
		f.Close()
		if err := simdisk.Crash(dir); err != nil {
			st.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		want := "new, never synced"
		if on {
			want = "old"
		}
		if string(got) != want {
			st.Errorf("after the crash: %q, want %q", got, want)
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}

	// Outside a run, writes are Go's.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprint(f, "outside"); err != nil || f.Sync() != nil {
		t.Fatal(err)
	}
	if !on {
		t.Log("package os has no hooks here")
	}
}

// TestLostDirent: with the hooks and FaultLostDirent, a crash undoes the
// creations, renames and removals whose directory was not synced since:
// a config replaced by a rename is the old one again, unless the directory
// was synced after the rename. With the fault off, renames are durable at
// once, as they were.
func TestLostDirent(t *testing.T) {
	if !osHooked(t) {
		t.Skip("package os has no hooks here: nothing sees a rename")
	}
	for _, c := range []struct {
		name    string
		p       float64
		syncDir bool
		want    string
	}{
		{"no directory sync", 1, false, "old"},
		{"the directory synced", 1, true, "new"},
		{"the fault off", 0, false, "new"},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			config, gone := filepath.Join(dir, "config"), filepath.Join(dir, "gone")
			for _, p := range []string{config, gone} {
				if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res, err := schedtest.Run(schedtest.Options{Seed: 1, Faults: map[string]float64{simdisk.FaultLostDirent: c.p}}, func(st *schedtest.T) {
				tmp := config + ".tmp"
				f, err := os.Create(tmp)
				if err != nil {
					st.Fatal(err)
				}
				fmt.Fprint(f, "new")
				if err := f.Sync(); err != nil {
					st.Fatal(err)
				}
				f.Close()
				if err := os.Rename(tmp, config); err != nil {
					st.Fatal(err)
				}
				if err := os.Remove(gone); err != nil {
					st.Fatal(err)
				}
				if c.syncDir {
					syncDir(st, dir)
				}
				if err := simdisk.Crash(dir); err != nil {
					st.Fatal(err)
				}
				got, _ := os.ReadFile(config)
				_, terr := os.Stat(tmp)
				_, gerr := os.Stat(gone)
				if string(got) != c.want || terr == nil {
					st.Errorf("after the crash the config holds %q (want %q), the temporary file is there: %v", got, c.want, terr == nil)
				}
				if back := gerr == nil; back != (c.want == "old") {
					st.Errorf("the removed file is back: %v, want %v", back, c.want == "old")
				}
			})
			if err != nil || res.Failure != nil {
				t.Fatalf("%v %v", err, res.Failure)
			}
		})
	}
}

// TestLostDirentTrees: with the hooks and FaultLostDirent, a crash undoes
// directories made (MkdirAll) and trees removed (RemoveAll) whose parent
// was not synced since: the tree comes back with its files, subdirectories
// and links, and a directory made gone takes with it what was synced
// inside. The crash's own directory stays, though the run made it.
func TestLostDirentTrees(t *testing.T) {
	if !osHooked(t) {
		t.Skip("package os has no hooks here: nothing sees a mkdir")
	}
	for _, c := range []struct {
		name    string
		p       float64
		syncDir bool
		newDirs string // which of new and new/deep are there after the crash
		oldBack bool
	}{
		{"no directory sync", 1, false, "", true},
		{"the parent synced", 1, true, "new", false},
		{"the fault off", 0, false, "new new/deep", false},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			old := filepath.Join(dir, "old")
			if err := os.MkdirAll(filepath.Join(old, "sub"), 0o750); err != nil {
				t.Fatal(err)
			}
			for name, data := range map[string]string{"a": "A", "sub/b": "B"} {
				if err := os.WriteFile(filepath.Join(old, name), []byte(data), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink("a", filepath.Join(old, "link")); err != nil {
				t.Fatal(err)
			}
			res, err := schedtest.Run(schedtest.Options{Seed: 1, Faults: map[string]float64{simdisk.FaultLostDirent: c.p}}, func(st *schedtest.T) {
				deep := filepath.Join(dir, "new", "deep")
				if err := os.MkdirAll(deep, 0o755); err != nil {
					st.Fatal(err)
				}
				f, err := os.Create(filepath.Join(deep, "f"))
				if err != nil {
					st.Fatal(err)
				}
				fmt.Fprint(f, "synced")
				if err := f.Sync(); err != nil {
					st.Fatal(err)
				}
				f.Close()
				if err := os.RemoveAll(old); err != nil {
					st.Fatal(err)
				}
				if c.syncDir {
					syncDir(st, dir)
				}
				if err := simdisk.Crash(dir); err != nil {
					st.Fatal(err)
				}
				var there []string
				for _, d := range []string{"new", "new/deep"} {
					if _, err := os.Stat(filepath.Join(dir, d)); err == nil {
						there = append(there, d)
					}
				}
				if got := strings.Join(there, " "); got != c.newDirs {
					st.Errorf("after the crash %q are there, want %q", got, c.newDirs)
				}
				a, aerr := os.ReadFile(filepath.Join(old, "a"))
				b, _ := os.ReadFile(filepath.Join(old, "sub", "b"))
				link, _ := os.Readlink(filepath.Join(old, "link"))
				fi, _ := os.Stat(filepath.Join(old, "sub"))
				if back := aerr == nil; back != c.oldBack {
					st.Errorf("the removed tree is back: %v, want %v", back, c.oldBack)
				} else if back && (string(a) != "A" || string(b) != "B" || link != "a" || fi == nil || fi.Mode().Perm() != 0o750) {
					st.Errorf("the tree came back as a=%q sub/b=%q link=%q sub=%v", a, b, link, fi)
				}

				// A crash of a directory the run made leaves it there.
				node, err := os.MkdirTemp(dir, "node")
				if err != nil {
					st.Fatal(err)
				}
				if err := simdisk.Crash(node); err != nil {
					st.Fatal(err)
				}
				if _, err := os.Stat(node); err != nil {
					st.Errorf("the crash took its own directory: %v", err)
				}
			})
			if err != nil || res.Failure != nil {
				t.Fatalf("%v %v", err, res.Failure)
			}
		})
	}
}

// TestProcessInARun: with the hooks, a process that a run starts is told
// so in its environment (engine.ProcessEnv: a test binary then runs its
// tests natively), and once it has been waited for, the run's clock is not
// paced to real time any more. Without them, the environment is the
// run's own.
func TestProcessInARun(t *testing.T) {
	on := osHooked(t)
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(st *schedtest.T) {
		out, err := exec.Command("sh", "-c", "echo \"$"+engine.ProcessEnv+"\"").Output()
		if err != nil {
			st.Fatal(err)
		}
		want := ""
		if on {
			want = "1"
		}
		if got := strings.TrimSpace(string(out)); got != want {
			st.Errorf("the process found %s=%q, want %q", engine.ProcessEnv, got, want)
		}
		if started := engine.Current().StartedProcesses(); started != on {
			st.Errorf("the run says it started a process: %v, want %v", started, on)
		}
		start := time.Now()
		vtime.Sleep(3 * time.Second)
		if took := time.Since(start); took > time.Second {
			st.Errorf("a sleep of 3s after the process was waited for took %v", took)
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
}

// syncDir syncs the directory dir, as a store that makes its entries
// durable does.
func syncDir(st *schedtest.T, dir string) {
	d, err := os.Open(dir)
	if err != nil {
		st.Fatal(err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		st.Fatal(err)
	}
}
