package rewrite_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/rewrite"
)

// The rewrite's cache is not trusted for being there (issue 26): what it
// reuses is checked against its manifest, it is private to the user, and a
// cache directory that others could write is refused.

// modifiedLine is the line that says a cache entry was modified.
var modifiedLine = regexp.MustCompile(`^dstreplay: rewrite cache entry (\S+) was modified \(file (\S+)\); rebuilding\n$`)

// bareModule is a module of files that need nothing outside the standard
// library, made without the go command.
func bareModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.26\n"
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// xsyncModule is a module whose code uses golang.org/x/sync/errgroup, from
// the module cache (the version this module requires), and the environment
// that builds it offline.
func xsyncModule(t *testing.T) (string, []string) {
	t.Helper()
	sum, err := os.ReadFile(filepath.Join("..", "..", "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(sum), "\n") {
		if strings.HasPrefix(l, "golang.org/x/sync v0.24.0") {
			lines = append(lines, l)
		}
	}
	dir := bareModule(t, map[string]string{
		"go.sum": strings.Join(lines, "\n") + "\n",
		"m.go": "package m\n\nimport \"golang.org/x/sync/errgroup\"\n\n" +
			"func F() error {\n\tvar g errgroup.Group\n\tc := make(chan int, 1)\n\tg.Go(func() error { c <- 1; return nil })\n\treturn g.Wait()\n}\n",
	})
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\ngo 1.26\n\nrequire golang.org/x/sync v0.24.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off")
}

// replaced is the overlay's Replace map.
func replaced(t *testing.T, overlay string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(overlay)
	if err != nil {
		t.Fatal(err)
	}
	var o struct{ Replace map[string]string }
	if err := json.Unmarshal(data, &o); err != nil {
		t.Fatalf("%s: %v", overlay, err)
	}
	return o.Replace
}

// copyOf is the directory of the module's copy that the overlay's go.mod
// replaces it with.
func copyOf(t *testing.T, overlay, module string) string {
	t.Helper()
	for name, f := range replaced(t, overlay) {
		if filepath.Base(name) != "go.mod" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := regexp.MustCompile(`(?m)^replace ` + regexp.QuoteMeta(module) + `(?: \S+)? => (.+)$`).FindStringSubmatch(string(data)); m != nil {
			return m[1]
		}
	}
	t.Fatalf("the overlay %s replaces no %s", overlay, module)
	return ""
}

// rewriteLogged runs Overlay and returns what it said on stderr.
func rewriteLogged(t *testing.T, opts rewrite.Options) (string, string) {
	t.Helper()
	var log bytes.Buffer
	logTo(&opts, &log)
	overlay, _, err := rewrite.Overlay(opts)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	return overlay, log.String()
}

// TestCacheEditedFileIsRebuilt: a rewritten file edited in the cache between
// two runs is not compiled by the second: a line names it, and it is made
// again.
func TestCacheEditedFileIsRebuilt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod")
	dir := tempModule(t, env, map[string]string{
		"m.go":   "package m\n\nfunc F(c chan int) { c <- 1 }\n",
		"dst.go": "package m\n\nimport _ \"github.com/dstgo/dst/sched/native\"\n",
	})
	opts := rewrite.Options{Dir: dir, Patterns: []string{"."}, Env: env, CacheDir: t.TempDir()}
	first, log := rewriteLogged(t, opts)
	if log != "" {
		t.Errorf("a fresh cache: %q on stderr", log)
	}
	cachedFile := replaced(t, first)[filepath.Join(dir, "m.go")]
	want, err := os.ReadFile(cachedFile)
	if err != nil || !strings.Contains(string(want), "Send(") {
		t.Fatalf("the rewritten m.go (%s): %v\n%s", cachedFile, err, want)
	}
	planted := string(want) + "\nvar _ int = \"planted\"\n" // compiled in, the build fails
	if err := os.WriteFile(cachedFile, []byte(planted), 0o600); err != nil {
		t.Fatal(err)
	}

	again, log := rewriteLogged(t, opts)
	m := modifiedLine.FindStringSubmatch(log)
	if m == nil || m[2] != cachedFile {
		t.Errorf("after an edit of %s, stderr says %q, want one line naming it", cachedFile, log)
	}
	got, err := os.ReadFile(replaced(t, again)[filepath.Join(dir, "m.go")])
	if err != nil || string(got) != string(want) {
		t.Errorf("the overlay's m.go after the edit: %v\n%s\nwant\n%s", err, got, want)
	}
	build := exec.Command("go", "build", "-overlay="+again, ".")
	build.Dir, build.Env = dir, env
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -overlay: %v\n%s", err, out)
	}

	if third, log := rewriteLogged(t, opts); third != again || log != "" {
		t.Errorf("the third run: %s, %q on stderr; want %s, nothing", third, log, again)
	}
}

// TestCacheModuleCopyIsChecked: the copy of a module from the module cache
// is used only as it was made: a file added (the go command would compile a
// .go file), edited or removed makes it again, and a line says so.
func TestCacheModuleCopyIsChecked(t *testing.T) {
	if testing.Short() {
		t.Skip("rewrites a module of the module cache")
	}
	dir, env := xsyncModule(t)
	opts := rewrite.Options{Dir: dir, Patterns: []string{"."}, Rewrite: []string{"golang.org/x/sync/errgroup"}, Env: env, CacheDir: t.TempDir()}
	first, log := rewriteLogged(t, opts)
	if log != "" {
		t.Errorf("a fresh cache: %q on stderr", log)
	}
	cp := copyOf(t, first, "golang.org/x/sync")
	orig, err := os.ReadFile(filepath.Join(cp, "semaphore", "semaphore.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file string
		tamper     func(path string) error
		check      func(path string) bool // the file is as in the module
	}{
		{"added", filepath.Join("errgroup", "planted.go"),
			func(path string) error {
				return os.WriteFile(path, []byte("package errgroup\n\nfunc init() { panic(\"planted\") }\n"), 0o600)
			},
			func(path string) bool { _, err := os.Lstat(path); return os.IsNotExist(err) }},
		{"edited", filepath.Join("semaphore", "semaphore.go"),
			func(path string) error {
				return os.WriteFile(path, append(orig[:len(orig):len(orig)], "\nfunc init() { panic(\"planted\") }\n"...), 0o600)
			},
			func(path string) bool { b, err := os.ReadFile(path); return err == nil && bytes.Equal(b, orig) }},
		{"removed", filepath.Join("semaphore", "semaphore.go"),
			os.Remove,
			func(path string) bool { b, err := os.ReadFile(path); return err == nil && bytes.Equal(b, orig) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(cp, tc.file)
			if err := tc.tamper(path); err != nil {
				t.Fatal(err)
			}
			overlay, log := rewriteLogged(t, opts)
			if m := modifiedLine.FindStringSubmatch(log); m == nil || m[2] != path {
				t.Errorf("stderr says %q, want one line naming %s", log, path)
			}
			if got := copyOf(t, overlay, "golang.org/x/sync"); got != cp {
				t.Fatalf("the copy is now %s, want %s", got, cp)
			}
			if !tc.check(path) {
				t.Errorf("%s is still %s", path, tc.name)
			}
			if _, log := rewriteLogged(t, opts); log != "" {
				t.Errorf("the next run: %q on stderr", log)
			}
		})
	}

	// The copy's directory, which others may write, is made again; the
	// directory that holds the copies is refused.
	entry := filepath.Dir(cp)
	t.Run("entry others may write", func(t *testing.T) {
		if err := os.Chmod(entry, 0o777); err != nil {
			t.Fatal(err)
		}
		_, log := rewriteLogged(t, opts)
		if m := modifiedLine.FindStringSubmatch(log); m == nil || m[1] != entry {
			t.Errorf("stderr says %q, want one line naming %s", log, entry)
		}
		if fi, err := os.Stat(entry); err != nil || fi.Mode() != fs.ModeDir|0o700 {
			t.Errorf("the copy made again: %v, %v", fi.Mode(), err)
		}
	})
	t.Run("directory of copies others may write", func(t *testing.T) {
		mods := filepath.Join(opts.CacheDir, "mod")
		if err := os.Chmod(mods, 0o777); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(mods, 0o700)
		_, _, err := rewrite.Overlay(opts)
		if err == nil || !strings.Contains(err.Error(), "refusing the cache directory "+mods+":") {
			t.Fatalf("got %v, want %s refused", err, mods)
		}
	})
}

// TestCacheRefusesSharedDirectory: a cache directory that others may write,
// or that is not the user's, is refused, with what to do.
func TestCacheRefusesSharedDirectory(t *testing.T) {
	dir := bareModule(t, map[string]string{"m.go": "package m\n\nfunc F(c chan int) { c <- 1 }\n"})
	for _, tc := range []struct {
		name string
		mode fs.FileMode
		uid  int
		want string // in the error; "" for none
	}{
		{"world-writable", 0o777, -1, "chmod go-w"},
		{"group-writable", 0o770, -1, "chmod go-w"},
		{"not the user's", 0o700, 65534, "belongs to uid 65534"},
		{"the old default's mode", 0o755, -1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "cache")
			if err := os.Mkdir(root, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(root, tc.mode); err != nil {
				t.Fatal(err)
			}
			if tc.uid >= 0 {
				if os.Geteuid() != 0 {
					t.Skip("giving a directory to another user takes root")
				}
				if err := os.Chown(root, tc.uid, -1); err != nil {
					t.Fatal(err)
				}
			}
			wantRefused(t, dir, root, tc.want)
		})
	}
}

// TestCacheRefusesSharedParent: a directory above the cache that others
// may write and that is not sticky, or that holds a link on the way to it,
// is refused before anything is made there: they could move the cache
// aside and put theirs in its place after the checks. A sticky one (as
// /tmp is), or one whose group is the user's own, is fine; one another
// user owns (a container's home of another uid) is used, with a note.
// Regression (found in an attack, fixed): XDG_CACHE_HOME in a 0777
// directory was used, and another user swapped the cache's directory.
func TestCacheRefusesSharedParent(t *testing.T) {
	dir := bareModule(t, map[string]string{"m.go": "package m\n\nfunc F(c chan int) { c <- 1 }\n"})
	for _, tc := range []struct {
		name     string
		mode     fs.FileMode
		uid, gid int  // of the parent, or -1
		link     bool // the cache is reached through a link in the parent, of uid's if given
		want     string
		note     string // on stderr, when used
	}{
		{"world-writable", 0o777, -1, -1, false, "others may write it and it is not sticky", ""},
		{"group-writable, another group", 0o770, -1, 65534, false, "its group, not yours alone, may write it", ""},
		{"group-writable, the user's group", 0o770, -1, -1, false, "", ""},
		{"sticky", 0o777 | fs.ModeSticky, -1, -1, false, "", ""},
		{"a link in a shared directory", 0o777, -1, -1, true, "others may write it and it is not sticky", ""},
		{"another user's", 0o755, 65534, -1, false, "", "belongs to uid 65534, who could change the code"},
		{"another user's link", 0o755, 65534, -1, true, "", "a link on the way to the cache, belongs to uid 65534"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if (tc.uid >= 0 || tc.gid >= 0 || tc.want == "" && tc.mode&0o020 != 0) && os.Geteuid() != 0 {
				t.Skip("giving a directory to another user or group, or knowing the user's group is private, takes root here")
			}
			top := t.TempDir()
			parent := filepath.Join(top, "shared")
			if err := os.Mkdir(parent, 0o700); err != nil {
				t.Fatal(err)
			}
			via := parent
			if tc.link {
				// The link is in the parent, pointing at a private
				// directory of the user's.
				target := filepath.Join(top, "private")
				if err := os.Mkdir(target, 0o700); err != nil {
					t.Fatal(err)
				}
				via = filepath.Join(parent, "link")
				if err := os.Symlink(target, via); err != nil {
					t.Fatal(err)
				}
				if tc.uid >= 0 {
					if err := os.Lchown(via, tc.uid, -1); err != nil {
						t.Fatal(err)
					}
				}
			} else if tc.uid >= 0 || tc.gid >= 0 {
				if err := os.Chown(parent, tc.uid, tc.gid); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(parent, tc.mode); err != nil {
				t.Fatal(err)
			}
			root := filepath.Join(via, "cache")
			var stderr strings.Builder
			_, _, err := rewrite.Overlay(rewrite.Options{Dir: dir, Patterns: []string{"."}, CacheDir: root, Stderr: &stderr})
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if tc.note != "" && !strings.Contains(stderr.String(), tc.note) || tc.note == "" && strings.Contains(stderr.String(), "note:") {
					t.Errorf("stderr %q, want the note %q", stderr.String(), tc.note)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "refusing the cache directory "+root+":") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want the directory refused, with %q", err, tc.want)
			}
			if _, err := os.Lstat(root); err == nil {
				t.Errorf("made the refused directory %s", root)
			}
		})
	}
}

// wantRefused rewrites the module in dir with the cache root and checks
// that the cache is refused with want in the error and nothing written
// into it, or, with want "", that it is used.
func wantRefused(t *testing.T, dir, root, want string) {
	t.Helper()
	_, _, err := rewrite.Overlay(rewrite.Options{Dir: dir, Patterns: []string{"."}, CacheDir: root})
	if want == "" {
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), "refusing the cache directory "+root+":") || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want the directory refused, with %q", err, want)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("wrote %d files into the refused directory", len(entries))
	}
}

// TestCacheIsPrivate: a fresh cache, its directories on the way included,
// is the user's alone: directories 0700, files 0600, the module copy too.
func TestCacheIsPrivate(t *testing.T) {
	if testing.Short() {
		t.Skip("rewrites a module of the module cache")
	}
	dir, env := xsyncModule(t)
	top := filepath.Join(t.TempDir(), "made")
	opts := rewrite.Options{Dir: dir, Patterns: []string{"."}, Rewrite: []string{"golang.org/x/sync/errgroup"}, Env: env,
		CacheDir: filepath.Join(top, "by", "dstreplay")}
	rewriteLogged(t, opts)
	files := 0
	err := filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = fs.ModeDir | 0o700
		} else {
			files++
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
		}
		return nil
	})
	if err != nil || files < 10 {
		t.Fatalf("%d files in the cache: %v", files, err)
	}
}

// TestCacheSweepsLeftovers: the temporary files and directories that runs
// killed mid-write left in the cache are removed by a later rewrite, once
// they are old enough not to be a live run's.
func TestCacheSweepsLeftovers(t *testing.T) {
	dir := bareModule(t, map[string]string{"m.go": "package m\n\nfunc F(c chan int) { c <- 1 }\n"})
	root := t.TempDir()
	old := time.Now().Add(-2 * time.Hour)
	for _, name := range []string{".tmp-0123.go-1", ".copy-2/src", ".tmp-4567.go-3"} {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
		if name != ".tmp-4567.go-3" { // a live run's
			os.Chtimes(filepath.Dir(path), old, old)
			os.Chtimes(path, old, old)
		}
	}
	if _, _, err := rewrite.Overlay(rewrite.Options{Dir: dir, Patterns: []string{"."}, CacheDir: root}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{".tmp-0123.go-1": false, ".copy-2": false, ".tmp-4567.go-3": true} {
		if _, err := os.Lstat(filepath.Join(root, name)); (err == nil) != want {
			t.Errorf("%s: there %v, want %v", name, err == nil, want)
		}
	}
}

// TestCacheEntryIsTheMainModules: two main modules that test the same
// package of the module cache get overlays of their own, each replacing its
// own go.mod (regression: the second got the first's entry, whose overlay
// replaced the first module's go.mod, so the go command compiled the
// dependency as the module cache has it, not rewritten, without a word).
func TestCacheEntryIsTheMainModules(t *testing.T) {
	if testing.Short() {
		t.Skip("rewrites a module of the module cache")
	}
	cache := t.TempDir()
	var overlays []string
	for range 2 {
		dir, env := xsyncModule(t)
		opts := rewrite.Options{Dir: dir, Patterns: []string{"golang.org/x/sync/errgroup"},
			Rewrite: []string{"golang.org/x/sync/errgroup"}, Env: env, CacheDir: cache}
		overlay, _, err := rewrite.Overlay(opts)
		if err != nil {
			t.Fatal(err)
		}
		goMod := filepath.Join(dir, "go.mod")
		if _, ok := replaced(t, overlay)[goMod]; !ok {
			t.Errorf("the overlay of the module in %s does not replace its go.mod: %v", dir, replaced(t, overlay))
		}
		overlays = append(overlays, overlay)
	}
	if overlays[0] == overlays[1] {
		t.Errorf("both modules got the overlay %s", overlays[0])
	}
}
