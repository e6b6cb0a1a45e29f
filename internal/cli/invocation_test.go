package cli

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// TestInvocation: dstreplay test tells the test binaries how dstreplay was
// run, so that the commands their reports print run it the same way.
func TestInvocation(t *testing.T) {
	tmp := t.TempDir()
	onTheFly := filepath.Join(tmp, "go-build123", "b001", "exe", "dstreplay") // go run, go tool
	mkfile := func(path, text string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	mkfile(onTheFly, "")
	tool := filepath.Join(tmp, "tool")
	mkfile(filepath.Join(tool, "go.mod"), "module example.com/m\n\ngo 1.24\n\ntool github.com/dstgo/dst/cmd/dstreplay // the scheduler\n")
	block := filepath.Join(tmp, "block")
	mkfile(filepath.Join(block, "go.mod"), "module example.com/m\n\ntool (\n\tgolang.org/x/tools/cmd/stringer\n\tgithub.com/dstgo/dst/cmd/dstreplay\n)\n")
	required := filepath.Join(tmp, "required")
	mkfile(filepath.Join(required, "go.mod"), "module example.com/m\n\nrequire github.com/dstgo/dst v1.2.3\n")
	sub := filepath.Join(tool, "pkg", "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	binDir := filepath.Join(tmp, "my bin")
	installed := mkfile(filepath.Join(binDir, "dstreplay"), "")
	if p, err := filepath.EvalSymlinks(installed); err == nil {
		installed = p
	}
	user := &debug.BuildInfo{Main: debug.Module{Path: "example.com/m", Version: "(devel)"}}
	for _, c := range []struct {
		name, exe string
		bi        *debug.BuildInfo
		dir, path string
		want      string
	}{
		{"go run at a version", onTheFly, &debug.BuildInfo{Main: debug.Module{Path: dstModule, Version: "v1.2.3"}}, tmp, "",
			"go run github.com/dstgo/dst/cmd/dstreplay@v1.2.3"},
		{"a replaced version", onTheFly, &debug.BuildInfo{Main: debug.Module{Path: dstModule, Version: "v0.0.0",
			Replace: &debug.Module{Path: "../dst"}}}, required, "", "go run github.com/dstgo/dst/cmd/dstreplay"},
		{"a tool built at its required version", onTheFly, &debug.BuildInfo{Main: debug.Module{Path: dstModule, Version: "v1.2.3"}}, tool, "",
			"go tool dstreplay"},
		{"inside dstreplay's module", onTheFly, &debug.BuildInfo{Main: debug.Module{Path: dstModule, Version: "(devel)"}}, tmp, "",
			"go run github.com/dstgo/dst/cmd/dstreplay"},
		{"a tool of the module", onTheFly, user, tool, "", "go tool dstreplay"},
		{"a tool, from a package below", onTheFly, user, sub, "", "go tool dstreplay"},
		{"a tool in a block", onTheFly, user, block, "", "go tool dstreplay"},
		{"a requirement, not a tool", onTheFly, user, required, "", "go run github.com/dstgo/dst/cmd/dstreplay"},
		{"unknown", onTheFly, nil, tool, "", ""},
		{"installed, not on PATH", installed, nil, tool, tmp, "'" + installed + "'"},
		{"installed, on PATH", installed, nil, tool, binDir, "dstreplay"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.path != "" {
				t.Setenv("PATH", c.path)
			}
			if got := invocationOf(c.exe, c.bi, c.dir); got != c.want {
				t.Errorf("invocationOf(%s, %v, %s) = %q, want %q", c.exe, c.bi, c.dir, got, c.want)
			}
		})
	}
}
