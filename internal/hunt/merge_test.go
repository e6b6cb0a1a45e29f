package hunt_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/hunt"
)

// Two machines' corpora of the same tests merge into one: each input once
// (the same schedule found on both is one file), in the same layout;
// damaged files, links and other files are named and not copied; merging
// again adds nothing.
func TestMergeCorpus(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	test := filepath.Join("example.com", "m", "TestX")
	write := func(root string, in hunt.Input) string {
		dir := filepath.Join(root, test)
		os.MkdirAll(dir, 0o755)
		p, err := hunt.WriteInput(dir, in)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	write(a, crInput(1, 3))
	shared := write(a, crInput(2, 3))
	write(b, crInput(2, 3)) // found on both
	onlyB := write(b, crInput(3, 5))
	other := write(b, crInput(4, 1))
	os.Rename(other, filepath.Join(b, test, "renamed.input")) // its name is not its hash: rewritten under it
	os.WriteFile(filepath.Join(b, test, "0123456789abcdef.input"), []byte("not an input"), 0o644)
	os.WriteFile(filepath.Join(b, test, "notes.txt"), []byte("kept out"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(b, test, "link.input"))

	st, err := hunt.MergeCorpus(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if st.Added != 2 || st.Present != 1 || len(st.Invalid) != 2 {
		t.Errorf("merge: %+v, want 2 added, 1 present, 2 invalid", st)
	}
	joined := strings.Join(st.Invalid, "\n")
	if !strings.Contains(joined, "0123456789abcdef.input") || !strings.Contains(joined, "link.input: not a regular file") {
		t.Errorf("invalid: %q", st.Invalid)
	}
	for _, p := range []string{shared, filepath.Join(a, test, filepath.Base(onlyB)), filepath.Join(a, test, filepath.Base(other))} {
		if _, err := hunt.ReadInput(p); err != nil {
			t.Errorf("after the merge: %v", err)
		}
	}
	ents, _ := os.ReadDir(filepath.Join(a, test))
	if len(ents) != 4 {
		t.Errorf("the merged corpus has %d files, want 4", len(ents))
	}
	if st, err := hunt.MergeCorpus(a, b); err != nil || st.Added != 0 || st.Present != 3 {
		t.Errorf("merging again: %+v, %v; want nothing added", st, err)
	}
	if _, err := hunt.MergeCorpus(a, filepath.Join(b, "missing")); err == nil {
		t.Error("merging a corpus that does not exist: no error")
	}
}
