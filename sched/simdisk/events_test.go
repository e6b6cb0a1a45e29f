package simdisk_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simdisk"
	"github.com/dstgo/dst/trace"
)

// TestTraceDiskEvents: a traced run records each write (where it went in
// the file, appended or at an offset, and how many bytes), each sync
// (what it made durable) and a crash (what the file kept and lost) as I/O
// events on the file's object, which is the same for every handle of the
// file and names its path.
func TestTraceDiskEvents(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	res, err := schedtest.Run(schedtest.Options{Seed: 1, Record: true}, func(st *schedtest.T) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			st.Fatal(err)
		}
		simdisk.WriteString(f, "first;")
		simdisk.Sync(f)
		simdisk.Write(f, []byte("second;"))
		f.Close()
		g, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			st.Fatal(err)
		}
		simdisk.WriteAt(g, []byte("F"), 0)
		g.Close()
		if err := simdisk.Crash(dir); err != nil {
			st.Fatal(err)
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	evs, err := res.Trace.Events()
	if err != nil {
		t.Fatal(err)
	}
	labels := map[int32]string{}
	var got []string
	objs := map[int32]bool{}
	for _, e := range evs {
		switch e.Kind {
		case trace.KindObject:
			labels[e.Obj] = e.Text
		case trace.KindIO:
			objs[e.Obj] = true
			got = append(got, fmt.Sprintf("%s at=%d bytes=%d", trace.OpName(e.Op), e.Arg, e.N))
		}
	}
	// The crash keeps what the sync made durable, and a drawn part of
	// the 7 bytes appended after it: the write at 0 is lost either way.
	want := "Write at=0 bytes=6, Sync at=6 bytes=0, Write at=6 bytes=7, Write at=0 bytes=1, Crash at="
	if s := strings.Join(got, ", "); !strings.HasPrefix(s, want) || len(objs) != 1 {
		t.Fatalf("the I/O events are %s, on %d objects; want %s..., on one", s, len(objs), want)
	}
	// The test's temporary directory is named anew in each process: the
	// name leaves it out, for a replay in another to compare equal.
	for obj := range objs {
		if want := "file $TMPDIR/…/log"; labels[obj] != want {
			t.Errorf("the file is named %q, want %q", labels[obj], want)
		}
	}
	var kept, lost int64
	fmt.Sscanf(got[len(got)-1], "Crash at=%d bytes=%d", &kept, &lost)
	if b, _ := os.ReadFile(path); kept < 6 || kept+lost != 13 || int64(len(b)) != kept {
		t.Errorf("the crash kept %d bytes and lost %d; the file holds %q", kept, lost, b)
	}
}
