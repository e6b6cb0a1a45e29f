package rewrite

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// listed is a package as go list -deps -test describes it.
type listed struct {
	ImportPath, Name, Dir, ForTest string
	Standard                       bool
	Module                         *struct {
		Path, Version, Dir string
		Main               bool
		Replace            *struct{ Path, Version string }
	}
	GoFiles, CgoFiles, TestGoFiles, XTestGoFiles, EmbedFiles []string
	Deps                                                     []string
}

// list runs go list -deps -test on the patterns: one listing gives the
// rewrite's cache key and, when the key is new, the packages to rewrite.
func list(opts Options) ([]listed, error) {
	args := append([]string{"list", "-e", "-deps", "-test",
		"-json=ImportPath,Name,Dir,ForTest,Standard,Module,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,EmbedFiles,Deps"}, opts.Flags...)
	cmd := exec.Command("go", append(args, opts.Patterns...)...)
	cmd.Dir, cmd.Env = opts.Dir, opts.Env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, stderr.String())
	}
	var pkgs []listed
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			return pkgs, nil
		} else if err != nil {
			return nil, fmt.Errorf("go list: %w", err)
		}
		pkgs = append(pkgs, p)
	}
}

// cacheKey identifies a rewrite by what it depends on: this program, the
// options, the build environment, and every file of every package outside
// the standard library that the tested packages build with (by name, size
// and modification time, as go's own staleness check does; a module's
// files by its version). The standard library is the toolchain's, named by
// its version. The packages to rewrite (strict and lenient, as targets
// lists them) are part of it too, so that an overlay made for one set is
// never used for another.
func cacheKey(opts Options, pkgs []listed, strict, lenient []string) (string, error) {
	h := sha256.New()
	self, err := os.Executable()
	if err == nil {
		if st, err := os.Stat(self); err == nil {
			fmt.Fprintf(h, "tool %s %d %d\n", self, st.Size(), st.ModTime().UnixNano())
		}
	}
	fmt.Fprintf(h, "go %s\nflags %q\npatterns %q\nrewrite %q\ndeps %v\nwrap %v\nhttp %v\n", runtime.Version(), opts.Flags, opts.Patterns, opts.Rewrite, opts.Deps, opts.Wrap, opts.HTTP)
	fmt.Fprintf(h, "strict %q\nlenient %q\n", strict, lenient)
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	for _, kv := range env { // what changes which files build
		for _, name := range []string{"GOOS=", "GOARCH=", "GOFLAGS=", "CGO_ENABLED=", "GOEXPERIMENT=", "GOTOOLCHAIN="} {
			if strings.HasPrefix(kv, name) {
				fmt.Fprintf(h, "env %s\n", kv)
			}
		}
	}
	// The main module's go.mod: the overlay replaces it (its requirements,
	// plus the copies of rewritten modules of the module cache), so an
	// entry made from one main module is not another's, even when the
	// packages are the same module cache's (regression: a second module
	// testing the same dependency got the first one's overlay, which
	// replaced the first module's go.mod, and ran the dependency natively).
	goMod, err := mainGoMod(opts)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "gomod %s\n", goMod)
	if data, err := os.ReadFile(goMod); err == nil {
		sum := sha256.Sum256(data)
		fmt.Fprintf(h, "gomod sum %x\n", sum)
	}
	for _, p := range pkgs {
		if p.Standard || strings.HasSuffix(p.ImportPath, ".test") { // a test's generated main follows from the rest
			continue
		}
		fmt.Fprintf(h, "pkg %s %s\n", p.ImportPath, p.Dir)
		if m := p.Module; m != nil && m.Version != "" && m.Replace == nil {
			fmt.Fprintf(h, "module %s@%s\n", m.Path, m.Version) // the module cache's files do not change
			continue
		}
		for _, group := range [][]string{p.GoFiles, p.CgoFiles, p.TestGoFiles, p.XTestGoFiles, p.EmbedFiles} {
			for _, f := range group {
				if !filepath.IsAbs(f) {
					f = filepath.Join(p.Dir, f)
				}
				st, err := os.Stat(f)
				if err != nil {
					return "", err
				}
				fmt.Fprintf(h, "file %s %d %d\n", f, st.Size(), st.ModTime().UnixNano())
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// The rewrite's cache, under its root:
//
//	<hash>.go, <hash>.json, <hash>.mod  the rewritten files, the overlays and the go.mod replacements,
//	                                    named by half of their SHA-256: the same rewrite is the same
//	                                    file, so go's build cache keeps its compilation
//	key-<key>                           an entry: the manifest of the overlay that a rewrite with that
//	                                    key made (the SHA-256 of each of its files, and the module
//	                                    copies it uses)
//	mod/<module>@<version>/             a module's copy (modcache.go): its files under src, and their
//	                                    SHA-256 in manifest
//
// Nothing there is trusted for being there. An entry is reused only when
// every file it names is a regular file of the user's that others may not
// write and hashes as its manifest says, and a module's copy holds no other
// file (the go command would compile an added .go file). Otherwise a line
// on stderr says so, and the entry is made again; a file of the same name is
// replaced. Everything is created private to the user (directories 0700,
// files 0600) and written whole, a temporary file or directory renamed into
// place once complete, so a killed run leaves no entry that looks complete.
// A cache directory that others could write, or that is not the user's, is
// refused: others could change the code go test compiles. (Someone who can
// write the user's own files can write the manifests too: the checks keep
// out other users, a cache restored or copied in damaged or tampered with,
// and edits of the rewritten files; they are no signature.)

// cache is the rewrite's cache for one Overlay.
type cache struct {
	root   string
	stderr io.Writer
	files  map[string]string // name in root -> SHA-256 (hex) of what this rewrite stored, for its manifest
	mods   map[string]string // a module's copy (its path from root) -> SHA-256 of its manifest
	bad    map[string]bool   // entries and files already reported modified
}

// manifest is the content of a key-<key> entry.
type manifest struct {
	Overlay string            // the overlay's name in the cache root
	Files   map[string]string // every file the overlay names, and itself: name in root -> SHA-256 (hex)
	Modules map[string]string // the module copies its go.mod replaces: path from root -> SHA-256 of its manifest
	Notes   []string          // the lines that say which dependencies run natively, and why
}

// openCache creates (private to the user) or checks the cache's root:
// opts.CacheDir, or dstreplay/rewrite in the user's cache directory.
func openCache(opts Options) (*cache, error) {
	c := &cache{root: opts.CacheDir, stderr: opts.Stderr, files: map[string]string{}, mods: map[string]string{}, bad: map[string]bool{}}
	if c.stderr == nil {
		c.stderr = os.Stderr
	}
	check := []string{}
	hint := "or give the rewrite another cache directory"
	if c.root == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("rewrite: no cache directory: %w", err)
		}
		tool := filepath.Join(base, "dstreplay")
		c.root = filepath.Join(tool, "rewrite")
		check = append(check, tool) // the tool's own, which it may have created
		hint = relocateHint()
	}
	root, err := filepath.Abs(c.root)
	if err != nil {
		return nil, fmt.Errorf("rewrite: the cache directory: %w", err)
	}
	c.root = root
	top := c.root
	if len(check) > 0 {
		top = check[0]
	}
	// Before anything is made there.
	where, refuse, warn := aboveCache(top)
	if refuse != "" {
		return nil, fmt.Errorf("rewrite: refusing the cache directory %s: %s, above it: %s, so others could move the cache "+
			"aside and change the code that dstreplay test compiles; chmod go-w %s (or +t, for a directory shared on purpose "+
			"such as /tmp), %s", c.root, where, refuse, where, hint)
	}
	if warn != "" {
		fmt.Fprintf(c.stderr, "dstreplay: note: %s; if that is not you, %s\n", warn, strings.TrimPrefix(hint, "or "))
	}
	if err := os.MkdirAll(c.root, 0o700); err != nil {
		return nil, fmt.Errorf("rewrite: creating the cache directory: %w", err)
	}
	for _, dir := range append(check, c.root) {
		if err := checkDir(dir, hint); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// relocateHint says how to give the default cache another place (where
// directories are refused: on Unix).
func relocateHint() string {
	switch runtime.GOOS {
	case "darwin", "ios":
		return "or move it aside (the cache is $HOME/Library/Caches/dstreplay/rewrite)"
	}
	return "or set XDG_CACHE_HOME to a directory of your own (the cache is $XDG_CACHE_HOME/dstreplay/rewrite)"
}

// checkDir refuses a directory of the cache that others could write,
// saying what to do: fix it, or what hint says.
func checkDir(dir, hint string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("rewrite: the cache directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("rewrite: the cache directory %s is not a directory", dir)
	}
	why, foreign := notPrivate(fi)
	if why == "" {
		return nil
	}
	fix := "chmod go-w " + dir
	if foreign {
		fix = "remove it"
	}
	if hint != "" {
		fix += ", " + hint
	}
	return fmt.Errorf("rewrite: refusing the cache directory %s: %s, so others could change the code that dstreplay test compiles; %s", dir, why, fix)
}

// mkdirs creates dir (private) and refuses it, or a directory between it
// and the root, if others could write it.
func (c *cache) mkdirs(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("rewrite: %w", err)
	}
	rel, err := filepath.Rel(c.root, dir)
	if err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("rewrite: %s is not inside the cache %s", dir, c.root)
	}
	for d := c.root; ; {
		if err := checkDir(d, ""); err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		first, rest, _ := strings.Cut(rel, string(filepath.Separator))
		d, rel = filepath.Join(d, first), rest
		if rel == "" {
			rel = "."
		}
	}
}

// modified says on stderr, once, that a cache entry was modified and is
// made again.
func (c *cache) modified(entry, file string) {
	if c.bad[entry] || c.bad[file] {
		return
	}
	c.bad[entry], c.bad[file] = true, true
	fmt.Fprintf(c.stderr, "dstreplay: rewrite cache entry %s was modified (file %s); rebuilding\n", entry, file)
}

// hashFile is the SHA-256 (hex) of the file at path, which must be a
// regular file that only the user may write.
func hashFile(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	if why, _ := notPrivate(fi); why != "" {
		return "", fmt.Errorf("%s: %s", path, why)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeFile writes data to path whole or not at all (mode 0600): a
// temporary file in the same directory, renamed over path once written.
func writeFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("rewrite: %w", err)
	}
	defer os.Remove(f.Name()) // after the rename, a no-op
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("rewrite: writing %s: %w", path, err)
	}
	return nil
}

// storeAs writes data under its hash in the root, with the extension ext,
// unless a file of the user's with that content is there, and adds it to the
// files of the entry being made.
func (c *cache) storeAs(data []byte, ext string) (string, error) {
	sum := sha256.Sum256(data)
	full := hex.EncodeToString(sum[:])
	name := full[:32] + ext
	path := filepath.Join(c.root, name)
	c.files[name] = full
	if !c.bad[path] {
		got, err := hashFile(path)
		if err == nil && got == full {
			return path, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			c.modified(path, path)
		}
	}
	if err := writeFile(path, data); err != nil {
		return "", err
	}
	return path, nil
}

// cached is the overlay that an earlier rewrite with the same key made, if
// its entry and every file and module copy it names are as it made them. A
// directory of the cache that others may write is an error.
func (c *cache) cached(key string) (string, int, bool, error) {
	entry := filepath.Join(c.root, "key-"+key)
	if _, err := os.Lstat(entry); err != nil {
		return "", 0, false, nil
	}
	fail := func(file string) (string, int, bool, error) {
		c.modified(entry, file)
		return "", 0, false, nil
	}
	if _, err := hashFile(entry); err != nil {
		return fail(entry) // not a regular file, or not the user's alone
	}
	data, err := os.ReadFile(entry)
	if err != nil {
		return fail(entry)
	}
	var m manifest
	if json.Unmarshal(data, &m) != nil || m.Files[m.Overlay] == "" {
		return fail(entry)
	}
	for _, name := range sortedKeys(m.Files) {
		path := filepath.Join(c.root, name)
		if name != filepath.Base(name) || !filepath.IsLocal(name) {
			return fail(entry)
		}
		if got, err := hashFile(path); err != nil || got != m.Files[name] {
			return fail(path)
		}
	}
	overlay := filepath.Join(c.root, m.Overlay)
	data, err = os.ReadFile(overlay)
	if err != nil {
		return fail(overlay)
	}
	var o struct{ Replace map[string]string }
	if json.Unmarshal(data, &o) != nil {
		return fail(overlay)
	}
	n := 0
	for name, f := range o.Replace {
		if filepath.Dir(f) != c.root || m.Files[filepath.Base(f)] == "" {
			return fail(overlay) // a file the manifest does not vouch for
		}
		if strings.HasSuffix(name, ".go") && filepath.Base(name) != flagFile {
			n++
		}
	}
	for _, rel := range sortedKeys(m.Modules) {
		dir := filepath.Join(c.root, rel)
		if !filepath.IsLocal(rel) || !strings.HasPrefix(rel, "mod"+string(filepath.Separator)) {
			return fail(entry)
		}
		if _, err := os.Lstat(filepath.Dir(dir)); err == nil {
			if err := c.mkdirs(filepath.Dir(dir)); err != nil {
				return "", 0, false, err // the directories on the way
			}
		}
		if _, err := os.Lstat(dir); err != nil {
			return "", 0, false, nil // the copy went away: made again
		}
		if _, bad := checkCopy(dir, m.Modules[rel]); bad != "" {
			c.modified(dir, bad) // the copy is made again, then this entry
			return "", 0, false, nil
		}
	}
	c.say(m.Notes)
	return overlay, n, true, nil
}

// say prints the notes of an overlay, one a line, as made or found again:
// each run says which dependencies run natively.
func (c *cache) say(notes []string) {
	for _, n := range notes {
		fmt.Fprintln(c.stderr, strings.ToValidUTF8(n, "?"))
	}
}

// writeEntry writes the manifest of the overlay just made under its key, last
// of all its files.
func (c *cache) writeEntry(key, overlay string, notes []string) error {
	data, err := json.MarshalIndent(manifest{Overlay: filepath.Base(overlay), Files: c.files, Modules: c.mods, Notes: notes}, "", "\t")
	if err != nil {
		return fmt.Errorf("rewrite: %w", err)
	}
	return writeFile(filepath.Join(c.root, "key-"+key), data)
}

// staleAfter is how old a temporary file or directory of the cache is when
// sweep takes it for one that a killed run left (a live run renames its own
// within seconds, or minutes for the copy of a large module).
const staleAfter = time.Hour

// sweep removes from dir the temporary files and directories (.tmp-*,
// .copy-*, .stale-*) that runs killed mid-write left there.
func sweep(dir string) {
	names, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, d := range names {
		n := d.Name()
		if !strings.HasPrefix(n, ".tmp-") && !strings.HasPrefix(n, ".copy-") && !strings.HasPrefix(n, ".stale-") {
			continue
		}
		if fi, err := d.Info(); err == nil && time.Since(fi.ModTime()) > staleAfter {
			removeTree(filepath.Join(dir, n))
		}
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
