package rewrite

import (
	"fmt"
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
// "replace <module> => <copy>", and the rewritten files of the copy. The
// copy is made once per module version; its files are the module's, so
// tests that read their testdata still find it. Directives still name the
// module cache's files, so reports point at them.

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
	cmd := exec.Command("go", "env", "GOMOD")
	cmd.Dir, cmd.Env = opts.Dir, opts.Env
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("rewrite: go env GOMOD: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// copyModules makes (or finds) the copy of each module under cacheDir and
// returns the text of the main module's go.mod with their replacements.
func copyModules(cacheDir string, mods []*cachedModule, goMod string) (string, error) {
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
		m.copy = filepath.Join(cacheDir, "mod", filepath.FromSlash(m.path)+"@"+m.version)
		if _, err := os.Stat(filepath.Join(m.copy, "go.mod")); err != nil {
			if err := copyTree(m.dir, m.copy, m.path); err != nil {
				return "", fmt.Errorf("rewrite: copying %s@%s out of the module cache: %w", m.path, m.version, err)
			}
		}
		fmt.Fprintf(&b, "replace %s => %s\n", m.path, m.copy)
	}
	return b.String(), nil
}

// copyTree copies the directory src to dst, which it creates whole or not
// at all.
func copyTree(src, dst, module string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), ".copy-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.CopyFS(tmp, os.DirFS(src)); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(tmp, "go.mod")); err != nil {
		// A module without a go.mod of its own (a pre-modules one): give
		// the copy one, as replace needs.
		if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte("module "+module+"\n"), 0o644); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		if _, statErr := os.Stat(filepath.Join(dst, "go.mod")); statErr == nil {
			return nil // another dstreplay made it first
		}
		return err
	}
	return nil
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
