package rewrite

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// listed is a package as go list -deps -test describes it.
type listed struct {
	ImportPath, Dir, ForTest string
	Standard                 bool
	Module                   *struct {
		Path, Version, Dir string
		Main               bool
		Replace            *struct{ Path, Version string }
	}
	GoFiles, CgoFiles, TestGoFiles, XTestGoFiles, EmbedFiles []string
}

// list runs go list -deps -test on the patterns: one listing gives the
// rewrite's cache key and, when the key is new, the packages to rewrite.
func list(opts Options) ([]listed, error) {
	args := append([]string{"list", "-e", "-deps", "-test",
		"-json=ImportPath,Dir,ForTest,Standard,Module,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,EmbedFiles"}, opts.Flags...)
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
// its version.
func cacheKey(opts Options, pkgs []listed) (string, error) {
	h := sha256.New()
	self, err := os.Executable()
	if err == nil {
		if st, err := os.Stat(self); err == nil {
			fmt.Fprintf(h, "tool %s %d %d\n", self, st.Size(), st.ModTime().UnixNano())
		}
	}
	fmt.Fprintf(h, "go %s\nflags %q\npatterns %q\nrewrite %q\nwrap %v\n", runtime.Version(), opts.Flags, opts.Patterns, opts.Rewrite, opts.Wrap)
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

// cached is the overlay an earlier rewrite with the same key wrote, if it
// and every file it names are still there.
func cached(dir, key string) (string, int, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "key-"+key))
	if err != nil {
		return "", 0, false
	}
	path := strings.TrimSpace(string(b))
	data, err := os.ReadFile(path)
	if err != nil {
		return "", 0, false
	}
	var o struct{ Replace map[string]string }
	if json.Unmarshal(data, &o) != nil {
		return "", 0, false
	}
	n := 0
	for name, f := range o.Replace {
		if _, err := os.Stat(f); err != nil {
			return "", 0, false
		}
		if _, err := os.Stat(filepath.Dir(name)); err != nil {
			return "", 0, false // a module's copy went away
		}
		if strings.HasSuffix(name, ".go") {
			n++
		}
	}
	return path, n, true
}
