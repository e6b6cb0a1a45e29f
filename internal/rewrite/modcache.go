package rewrite

import (
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
	"sort"
	"strings"
)

// The go command refuses an overlay of a file beneath GOMODCACHE, so a
// dependency that -rewrite names and that comes from the module cache is
// built from a copy of its module in the rewrite's cache directory: the
// overlay replaces the main module's go.mod with one that adds
// "replace <module> <version> => <copy>", and the rewritten files of the
// copy. The copy is made once per module version; its files are the
// module's, so tests that read their testdata still find it. Directives
// still name the module cache's files, so reports point at them. A copy is
// checked file by file against its manifest each time it is used, and made
// again when it differs (cache.go).
//
// The replacement names the version the build selects, and only it. One
// of every version would give each version of the module in the module
// graph the copy's go.mod: an older version that a module without graph
// pruning requires would then require what the selected one does, and the
// go command would read go.mod files the native build never reads, which
// the main module's go.sum has no lines for ("missing go.sum entry for
// go.mod file"), and could select other versions than the native build.
// Replaced at its version alone, the module graph is the native one.

// cachedModule is a dependency from the module cache that is rewritten.
type cachedModule struct {
	path, version, dir string // dir: its directory in the module cache
	copy               string // its copy
}

// cachedModules lists the modules of the packages to rewrite that come
// from the module cache.
func cachedModules(pkgs []listed, set map[string]bool) (mods []*cachedModule) {
	seen := map[string]bool{}
	for _, p := range pkgs {
		m := p.Module
		if m == nil {
			continue
		}
		path, _, _ := strings.Cut(p.ImportPath, " ")
		if p.ForTest != "" {
			path = p.ForTest
		}
		if !set[path] || m.Main || m.Version == "" || m.Replace != nil || m.Dir == "" || seen[m.Path] {
			continue
		}
		seen[m.Path] = true
		mods = append(mods, &cachedModule{path: m.Path, version: m.Version, dir: m.Dir})
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].path < mods[j].path })
	return mods
}

// mainGoMod is the path of the main module's go.mod, as go env GOMOD says.
func mainGoMod(opts Options) (string, error) {
	return goEnv(opts, "GOMOD")
}

// goEnv is the value of the go environment variable name, as go env says
// where the rewrite runs go.
func goEnv(opts Options, name string) (string, error) {
	cmd := exec.Command("go", "env", name)
	cmd.Dir, cmd.Env = opts.Dir, opts.Env
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("rewrite: go env %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// notInModCache is an error naming the module version that file belongs
// to if it is beneath the module cache modCache: the go command refuses an
// overlay that replaces such a file, and the rewrite only replaces the
// files of the copies of the module versions the build uses (a file there
// is of a version the build does not use, or that the rewrite did not
// copy).
func notInModCache(modCache, file string, listing []listed) error {
	if modCache == "" {
		return nil
	}
	rel, err := filepath.Rel(modCache, file)
	if err != nil || !filepath.IsLocal(rel) {
		return nil
	}
	modVersion := filepath.ToSlash(rel)
	if i := strings.Index(modVersion, "@"); i >= 0 {
		if j := strings.Index(modVersion[i:], "/"); j >= 0 {
			modVersion = modVersion[:i+j]
		}
	}
	modVersion = unescapeModPath(modVersion)
	path, _, _ := strings.Cut(modVersion, "@")
	uses := "no version of it"
	for _, p := range listing {
		if m := p.Module; m != nil && m.Path == path {
			uses = m.Path + "@" + m.Version
			if m.Replace != nil {
				uses += " replaced by " + strings.TrimSpace(m.Replace.Path+" "+m.Replace.Version)
			}
			break
		}
	}
	return fmt.Errorf("rewrite: cannot rewrite %s: its file %s is beneath the module cache, which go does not let an overlay replace, and is not of a module version the build uses that the rewrite copies out of it (the build uses %s)", modVersion, file, uses)
}

// unescapeModPath undoes the module cache's escaping of upper-case letters
// in a module path or version ("!a" for "A").
func unescapeModPath(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '!' && i+1 < len(s) && 'a' <= s[i+1] && s[i+1] <= 'z' {
			b.WriteByte(s[i+1] - 'a' + 'A')
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// copyModules makes (or finds, checked) the copy of each module in the
// cache and returns the text of the main module's go.mod with their
// replacements.
func (c *cache) copyModules(mods []*cachedModule, goMod string) (string, error) {
	if goMod == "" || goMod == os.DevNull {
		return "", fmt.Errorf("rewrite: %s comes from the module cache, and there is no main module's go.mod to replace it in", mods[0].path)
	}
	text, err := os.ReadFile(goMod)
	if err != nil {
		return "", fmt.Errorf("rewrite: %w", err)
	}
	var b strings.Builder
	b.Write(text)
	b.WriteString("\n// dstreplay test: rewritten dependencies from the module cache\n")
	for _, m := range mods {
		rel := filepath.Join("mod", filepath.FromSlash(m.path)+"@"+m.version)
		entry := filepath.Join(c.root, rel)
		sum, err := c.moduleCopy(entry, m)
		if err != nil {
			return "", err
		}
		c.mods[rel] = sum
		m.copy = filepath.Join(entry, copySrc)
		fmt.Fprintf(&b, "replace %s %s => %s\n", m.path, m.version, m.copy)
	}
	return b.String(), nil
}

// moduleCopy returns the SHA-256 of the manifest of m's copy in entry: the
// copy there if it is whole and unchanged, else a new one.
func (c *cache) moduleCopy(entry string, m *cachedModule) (string, error) {
	if err := c.mkdirs(filepath.Dir(entry)); err != nil {
		return "", err
	}
	if _, err := os.Lstat(entry); err == nil {
		if !c.bad[entry] {
			sum, bad := checkCopy(entry, "")
			if bad == "" {
				return sum, nil
			}
			c.modified(entry, bad)
		}
		if err := removeEntry(entry); err != nil {
			return "", fmt.Errorf("rewrite: removing the modified copy %s: %w", entry, err)
		}
	}
	sweep(filepath.Dir(entry))
	sum, err := copyTree(m.dir, entry, m.path)
	if err != nil {
		return "", fmt.Errorf("rewrite: copying %s@%s out of the module cache: %w", m.path, m.version, err)
	}
	return sum, nil
}

// A module's copy is a directory with the module's files under src and
// their SHA-256 in manifest, a JSON object from their slash-separated path
// in src to the SHA-256 (hex).
const copyManifest, copySrc = "manifest", "src"

// copyTree copies the module in the directory src to entry, which it
// creates whole or not at all, and returns the SHA-256 of its manifest.
func copyTree(src, entry, module string) (string, error) {
	tmp, err := os.MkdirTemp(filepath.Dir(entry), ".copy-*")
	if err != nil {
		return "", err
	}
	defer removeTree(tmp)
	files := map[string]string{}
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(tmp, copySrc, rel)
		switch {
		case d.IsDir():
			return os.Mkdir(to, 0o700)
		case d.Type().IsRegular():
			sum, err := copyFile(path, to)
			files[filepath.ToSlash(rel)] = sum
			return err
		}
		return fmt.Errorf("%s is not a regular file", path)
	})
	if err != nil {
		return "", err
	}
	if files["go.mod"] == "" {
		// A module without a go.mod of its own (a pre-modules one): give
		// the copy one, as replace needs.
		data := []byte("module " + module + "\n")
		if err := os.WriteFile(filepath.Join(tmp, copySrc, "go.mod"), data, 0o600); err != nil {
			return "", err
		}
		sum := sha256.Sum256(data)
		files["go.mod"] = hex.EncodeToString(sum[:])
	}
	data, err := json.MarshalIndent(files, "", "\t")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, copyManifest), data, 0o600); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, entry); err != nil {
		if sum, bad := checkCopy(entry, ""); bad == "" {
			return sum, nil // another dstreplay made it first
		}
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// copyFile copies the regular file src to the new file dst (mode 0600) and
// returns the SHA-256 (hex) of what it copied.
func copyFile(src, dst string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(out, h), in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return hex.EncodeToString(h.Sum(nil)), err
}

// checkCopy checks the module copy in entry against its manifest, whose
// SHA-256 must be want unless want is "": entry holds the manifest and src
// alone, src every file of the manifest with its SHA-256 and no other, and
// every directory and file there is the user's, that others may not write.
// It returns the SHA-256 of the manifest, or the first file that is not
// as it should be (an extra one, a missing one, or entry itself).
func checkCopy(entry, want string) (sum, bad string) {
	fi, err := os.Lstat(entry)
	if err != nil || !fi.IsDir() {
		return "", entry
	}
	if why, _ := notPrivate(fi); why != "" {
		return "", entry
	}
	names, err := os.ReadDir(entry)
	if err != nil {
		return "", entry
	}
	for _, d := range names {
		if d.Name() != copyManifest && d.Name() != copySrc {
			return "", filepath.Join(entry, d.Name())
		}
	}
	path := filepath.Join(entry, copyManifest)
	if sum, err = hashFile(path); err != nil || want != "" && sum != want {
		return "", path
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", path
	}
	var files map[string]string
	if json.Unmarshal(data, &files) != nil {
		return "", path
	}
	src := filepath.Join(entry, copySrc)
	seen := 0
	errBad := errors.New("not as the manifest says")
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			bad = path
			return err
		}
		bad = path
		if d.IsDir() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			if why, _ := notPrivate(fi); why != "" {
				return errBad
			}
			return nil
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		want, ok := files[filepath.ToSlash(rel)]
		if !ok {
			return errBad // a file added
		}
		if got, err := hashFile(path); err != nil || got != want {
			return errBad
		}
		seen++
		return nil
	})
	if err != nil {
		return "", bad
	}
	if seen != len(files) {
		for _, rel := range sortedKeys(files) {
			if _, err := os.Lstat(filepath.Join(src, filepath.FromSlash(rel))); err != nil {
				return "", filepath.Join(src, filepath.FromSlash(rel))
			}
		}
		return "", path
	}
	return sum, ""
}

// inCopy is the path of file in the copy of the module it belongs to, if
// it belongs to one of mods.
func inCopy(mods []*cachedModule, file string) (string, bool) {
	for _, m := range mods {
		if rel, err := filepath.Rel(m.dir, file); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join(m.copy, rel), true
		}
	}
	return "", false
}

// removeEntry removes a cache entry that is not as it was made: renamed
// aside at once (the name is free for a new one), then removed, as far as
// it can be.
func removeEntry(entry string) error {
	aside, err := os.MkdirTemp(filepath.Dir(entry), ".stale-*")
	if err != nil {
		return err
	}
	if err := os.Rename(entry, filepath.Join(aside, "entry")); err != nil {
		os.Remove(aside)
		return err
	}
	removeTree(aside)
	return nil
}

// removeTree removes the directory dir and what it holds, making the
// directories inside writable first if need be (a copy of read-only files).
func removeTree(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(path, 0o700)
		}
		return nil
	})
	os.RemoveAll(dir)
}
