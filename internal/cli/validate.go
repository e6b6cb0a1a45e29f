package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dstgo/dst/internal/gotest"
	"github.com/dstgo/dst/trace"
)

// A trace is untrusted input: it may come from CI, a fork's pull request or
// a bug report. exec and debug hand some of its fields to the go command
// (and to delve), so those fields are checked here first, and reach the
// command only as what they claim to be: the package as one import path
// that the current module resolves to a directory of its own, of a
// dependency, or of GOPATH; the test as a test's name, quoted into a -run
// pattern; the rewrite's patterns as import path patterns.

// checkRecorded reports why the header h of a trace cannot be re-run as
// the test of package pkg (h.Package without _test), or nil. Its errors
// name the field and what is wrong with it.
func checkRecorded(h *trace.Header, pkg string) error {
	if err := gotest.CheckPackage(pkg); err != nil {
		return fmt.Errorf("the trace's package %q is not the import path of a package: %w", h.Package, err)
	}
	if err := gotest.CheckTestName(h.Test); err != nil {
		return fmt.Errorf("the trace's test %q is not a test's name: %w", h.Test, err)
	}
	for _, o := range h.Options {
		switch k, v, _ := strings.Cut(o, "="); k {
		case "rewritten", "rewritten.wrap", "rewritten.nativehttp":
			if v != "1" {
				return fmt.Errorf("the trace's option %q is not %s=1", o, k)
			}
		case "rewritten.rewrite":
			for _, p := range strings.Split(v, ",") {
				if p == allDeps {
					continue // every dependency (markerValue)
				}
				if err := gotest.CheckPattern(p); err != nil {
					return fmt.Errorf("the trace's option %q has %q, which is not an import path pattern: %w", o, p, err)
				}
			}
		}
	}
	return nil
}

// sayRewrite says, for a trace recorded by code that dstreplay test
// rewrote, that the package is rewritten again (overlayFor) before it runs,
// and with which of the trace's flags (checked by checkRecorded).
func sayRewrite(e *env, cmd string, h *trace.Header, pkg string) {
	if !slices.Contains(h.Options, "rewritten=1") {
		return
	}
	var wrap, rewrite []string // in the order dstreplay test prints them
	for _, o := range h.Options {
		switch k, v, _ := strings.Cut(o, "="); k {
		case "rewritten.wrap":
			wrap = append([]string{"-wrap"}, wrap...)
		case "rewritten.nativehttp":
			wrap = append(wrap, "-nativehttp")
		case "rewritten.rewrite":
			rewrite = []string{"-rewrite=" + v}
		}
	}
	flags := append(wrap, rewrite...)
	fmt.Fprintf(e.stderr, "dstreplay %s: the trace was recorded by code that dstreplay test rewrote: rewriting %s again, as dstreplay test %s\n",
		cmd, pkg, strings.Join(append(flags, pkg), " "))
}

// listedPackage is what resolvePackage asks go list about a package.
type listedPackage struct {
	ImportPath, Dir  string
	Goroot, Standard bool
	Module           *struct {
		Dir     string
		Main    bool
		Replace *struct{ Version string }
	}
}

// resolvePackage returns the directory of the package pkg (checked by
// checkRecorded), as go list finds it from the current directory, and
// refuses a package that is not found, or that is found outside the main
// module (or workspace), the module cache and GOPATH/src: a trace names the
// code it re-runs only among the code the user already builds here. The
// package must be in the build list as it is: under GOFLAGS=-mod=mod, go
// list would otherwise look up a module that provides it, download it (from
// a proxy, or with git from the place the path names) and require it in
// go.mod, and the trace would name the code to fetch and run.
func resolvePackage(pkg string) (string, error) {
	env, err := goEnv()
	if err != nil {
		return "", fmt.Errorf("the trace's package %s: %w", pkg, err)
	}
	args := []string{"list", "-json=ImportPath,Dir,Goroot,Standard,Module"}
	if modMod(env.GOFLAGS) && env.GOMOD != "" {
		args = append(args, "-mod=readonly") // overrides GOFLAGS
	}
	// pkg cannot be a flag (it is an import path); -- says so again.
	var stderr bytes.Buffer
	cmd := exec.Command("go", append(args, "--", pkg)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("the trace's package %s is not found from here (run dstreplay inside the module that recorded the trace, which requires the package's module): go list: %v\n%s", pkg, err, strings.TrimSpace(stderr.String()))
	}
	var p listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&p); err != nil {
		return "", fmt.Errorf("the trace's package %s: go list: %w", pkg, err)
	}
	if dec.More() {
		return "", fmt.Errorf("the trace's package %s: go list lists more than one package", pkg)
	}
	switch {
	case p.ImportPath != pkg:
		return "", fmt.Errorf("the trace's package %s: go list finds %q instead", pkg, p.ImportPath)
	case p.Goroot || p.Standard:
		return "", fmt.Errorf("the trace's package %s is in the Go distribution (%s), not in the current module, its dependencies or GOPATH: dstreplay re-runs those only", pkg, p.Dir)
	case !filepath.IsAbs(p.Dir):
		return "", fmt.Errorf("the trace's package %s: go list gives no directory (%q)", pkg, p.Dir)
	}
	roots := packageRoots(p, env)
	for _, root := range roots {
		if within(p.Dir, root) {
			return p.Dir, nil
		}
	}
	return "", fmt.Errorf("the trace's package %s is in %s, outside the current module, GOPATH/src and the module cache (%s): dstreplay re-runs those only", pkg, p.Dir, strings.Join(roots, ", "))
}

// goEnvVars are the go command's settings resolvePackage reads.
type goEnvVars struct{ GOFLAGS, GOMOD, GOWORK, GOPATH, GOMODCACHE string }

// goEnv reads the go command's settings (the environment's, or go env -w's).
func goEnv() (goEnvVars, error) {
	var env goEnvVars
	var stderr bytes.Buffer
	cmd := exec.Command("go", "env", "-json", "GOFLAGS", "GOMOD", "GOWORK", "GOPATH", "GOMODCACHE")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return env, fmt.Errorf("go env: %v\n%s", err, strings.TrimSpace(stderr.String()))
	}
	if err := json.Unmarshal(out, &env); err != nil {
		return env, fmt.Errorf("go env: %w", err)
	}
	if env.GOMOD == os.DevNull { // outside a module
		env.GOMOD = ""
	}
	return env, nil
}

// modMod reports whether GOFLAGS says -mod=mod.
func modMod(goflags string) bool {
	mod := false
	for _, f := range strings.Fields(goflags) {
		if v, ok := strings.CutPrefix(strings.TrimPrefix(strings.TrimPrefix(f, "-"), "-"), "mod="); ok && strings.HasPrefix(f, "-") {
			mod = v == "mod"
		}
	}
	return mod
}

// packageRoots are the directories a trace's package may be in: its own
// module's when that is a main module (of the current directory or its
// workspace) or one they replace with a directory, the module cache, each GOPATH's src, and the vendor
// directory of the main module or workspace.
func packageRoots(p listedPackage, env goEnvVars) []string {
	var roots []string
	if m := p.Module; m != nil && m.Main && m.Dir != "" {
		roots = append(roots, m.Dir)
	}
	if m := p.Module; m != nil && !m.Main && m.Dir != "" && m.Replace != nil && m.Replace.Version == "" {
		// A module the main module's go.mod (or workspace) replaces with a
		// directory: the user chose it, and go test builds it from there.
		roots = append(roots, m.Dir)
	}
	for _, f := range []string{env.GOMOD, env.GOWORK} {
		if filepath.IsAbs(f) {
			roots = append(roots, filepath.Join(filepath.Dir(f), "vendor"))
		}
	}
	if env.GOMODCACHE != "" {
		roots = append(roots, env.GOMODCACHE)
	}
	for _, d := range filepath.SplitList(env.GOPATH) {
		if filepath.IsAbs(d) {
			roots = append(roots, filepath.Join(d, "src"))
		}
	}
	return roots
}

// within reports whether dir is root or beneath it, as written or with
// symbolic links resolved.
func within(dir, root string) bool {
	if root == "" || !filepath.IsAbs(root) {
		return false
	}
	beneath := func(dir, root string) bool {
		rel, err := filepath.Rel(root, dir)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
	}
	if beneath(filepath.Clean(dir), filepath.Clean(root)) {
		return true
	}
	d, err1 := filepath.EvalSymlinks(dir)
	r, err2 := filepath.EvalSymlinks(root)
	return errors.Join(err1, err2) == nil && beneath(d, r)
}

// commandLine is name and args as a shell would take them back: an
// argument with anything but letters, digits and -_./=:,+@% in single
// quotes (and a single quote in one as '\”), so that what dstreplay says
// it runs can be read, and pasted, exactly; env (KEY=value) is what the
// command's environment adds to dstreplay's, said before it.
func commandLine(name string, args []string, env ...string) string {
	var b strings.Builder
	for _, kv := range env { // what the command's environment adds, as a shell says it
		k, v, _ := strings.Cut(kv, "=")
		b.WriteString(k + "=" + shellQuote(v) + " ")
	}
	for i, a := range append([]string{name}, args...) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(shellQuote(a))
	}
	return b.String()
}

func shellQuote(a string) string {
	if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}
