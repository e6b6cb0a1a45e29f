package arch_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/dstgo/dst"

// layers lists the module's packages from the bottom up. A package may
// import those of lower layers, and those of its own layer that within
// names; never a higher layer's. A new package gets a row here.
var layers = []struct {
	name   string
	pkgs   []string
	within [][2]string // allowed imports inside the layer: {importer, imported}
}{
	{name: "foundations", pkgs: []string{"entropy", "internal/event", "internal/atomicfile", "internal/gotest", "internal/chanlink"}},
	{name: "engine and trace format", pkgs: []string{"internal/engine", "internal/quiet", "trace"},
		within: [][2]string{{"internal/quiet", "internal/engine"}}},
	{name: "schedule", pkgs: []string{"internal/schedule"}},
	{name: "shims", pkgs: []string{"sched", "sched/atomic", "chans", "vtime", "sched/context", "sched/native", "sched/native/boundary", "sched/simnet", "sched/simdisk"},
		within: [][2]string{{"vtime", "chans"}, {"sched/context", "chans"}, {"sched/context", "vtime"},
			{"sched/native", "chans"}, {"sched/native", "vtime"}, {"sched/native", "sched/context"},
			{"sched/native/boundary", "sched/native"},
			{"sched/simnet", "sched"}, {"sched/simnet", "sched/native"}, {"sched/simnet", "vtime"},
			{"sched/simdisk", "sched"}, {"sched/simdisk", "vtime"}}},
	{name: "nodes", pkgs: []string{"sched/cluster"}},
	{name: "playback and hunt engine", pkgs: []string{"replay", "internal/hunt"}},
	{name: "harness", pkgs: []string{"sched/schedtest", "sched/native/nativetest"},
		within: [][2]string{{"sched/native/nativetest", "sched/schedtest"}}},
	{name: "test support", pkgs: []string{"internal/testutil"}},
	{name: "command", pkgs: []string{"internal/rewrite", "internal/cli", "cmd/dstreplay"},
		within: [][2]string{{"cmd/dstreplay", "internal/cli"}, {"internal/cli", "internal/rewrite"}}},
	{name: "examples", pkgs: []string{"examples/..."}},
}

// layerOf returns the layer index of a package path relative to the
// module, or -1.
func layerOf(rel string) int {
	for i, l := range layers {
		for _, p := range l.pkgs {
			if p == rel || strings.HasSuffix(p, "/...") && strings.HasPrefix(rel+"/", strings.TrimSuffix(p, "...")) {
				return i
			}
		}
	}
	return -1
}

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// list runs go list -json with args and decodes its packages.
func list(t *testing.T, args ...string) []pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json"}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestLayers: every package of the module has a layer, and no import (test
// files aside) runs from a lower layer to a higher one, nor sideways within
// a layer unless the layer's table allows it.
func TestLayers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	for _, p := range list(t, module+"/...") {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if rel == "internal/arch" {
			continue
		}
		from := layerOf(rel)
		if from < 0 {
			t.Errorf("package %s has no layer: add it to the table in %s", rel, "internal/arch/arch_test.go")
			continue
		}
		for _, imp := range p.Imports {
			irel, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			to := layerOf(irel)
			switch {
			case to < 0:
				t.Errorf("%s imports %s, which has no layer", rel, irel)
			case to > from:
				t.Errorf("%s (layer %q) imports %s of the higher layer %q", rel, layers[from].name, irel, layers[to].name)
			case to == from && !slices.Contains(layers[from].within, [2]string{rel, irel}) && !sameTree(rel, irel):
				t.Errorf("%s imports %s, of its own layer %q, which the table does not allow", rel, irel, layers[from].name)
			}
		}
	}
}

// sameTree reports whether two packages are under one "dir/..." entry (the
// examples importing each other's packages is their own business).
func sameTree(a, b string) bool {
	return path.Dir(a) == path.Dir(b) && strings.HasPrefix(a, "examples/")
}

// TestShimsLinkNoHarness: a program that uses every shim links no testing,
// no flag package (so no -dst flags), no trace writer and no zstd, and none
// of the harness or the hunt.
func TestShimsLinkNoHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	shims := []string{"sched", "sched/atomic", "sched/context", "chans", "vtime", "sched/native"}
	var args []string
	for _, s := range shims {
		args = append(args, module+"/"+s)
	}
	banned := []string{"testing", "flag", "github.com/klauspost/compress/zstd",
		module + "/trace", module + "/sched/schedtest", module + "/internal/hunt", module + "/replay"}
	deps := list(t, append([]string{"-deps"}, args...)...)
	var seen []string
	for _, p := range deps {
		seen = append(seen, p.ImportPath)
	}
	for _, b := range banned {
		if slices.Contains(seen, b) {
			t.Errorf("the shims link %s (through %s)", b, importer(deps, b))
		}
	}
	// The list is the shims' whole closure: make sure it is, by finding
	// them in it.
	for _, a := range args {
		if !slices.Contains(seen, a) {
			t.Fatalf("go list -deps lacks %s itself: %v", a, seen)
		}
	}
}

// importer names a package of deps that imports b, to say where a banned
// dependency comes from.
func importer(deps []pkg, b string) string {
	for _, p := range deps {
		if slices.Contains(p.Imports, b) {
			return p.ImportPath
		}
	}
	return fmt.Sprintf("nothing that imports %s directly", b)
}
