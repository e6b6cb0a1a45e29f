package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// envTool is the environment variable in which dstreplay test tells the
// test binaries it runs how dstreplay was run, for the commands their
// reports print (sched/schedtest reads it).
const envTool = "DST_TOOL"

// dstModule is the module dstreplay is a command of.
const dstModule = "github.com/dstgo/dst"

// invocation is the command, as words of a shell command, that runs this
// dstreplay again from the directory dir, or "" when it cannot tell:
//
//   - a binary of its own (go install, a download): "dstreplay" when that
//     is the one on $PATH, else its absolute path;
//   - built by the go command as it ran (go tool, go run), as a tool of
//     the module in dir: "go tool dstreplay";
//   - built so in a module that requires dstreplay's without naming it a
//     tool: "go run github.com/dstgo/dst/cmd/dstreplay";
//   - built so from a version of dstreplay's module (go run ...@v1.2.0):
//     that command, with the version, unless the version is replaced.
func invocation(dir string) string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	bi, _ := debug.ReadBuildInfo()
	return invocationOf(exe, bi, dir)
}

// invocationOf is invocation for the executable exe built as bi says.
func invocationOf(exe string, bi *debug.BuildInfo, dir string) string {
	if !builtOnTheFly(exe) {
		if p, err := exec.LookPath("dstreplay"); err == nil {
			if q, err := filepath.EvalSymlinks(p); err == nil && q == exe {
				return "dstreplay"
			}
		}
		return shellQuote(exe)
	}
	if bi == nil {
		return ""
	}
	cmd := dstModule + "/cmd/dstreplay"
	switch v := bi.Main.Version; {
	case bi.Main.Path != "" && namesTool(dir, cmd):
		// First: go tool builds a tool with the version the module
		// requires as its main module's, which may be a replaced v0.0.0
		// that go run ...@version cannot fetch.
		return "go tool dstreplay"
	case bi.Main.Path == dstModule && bi.Main.Replace != nil:
		// Built from a module that replaces dstreplay's (a directory, or
		// a fork): its version is not one go run can fetch.
		return "go run " + cmd
	case bi.Main.Path == dstModule && v != "" && v != "(devel)":
		return "go run " + cmd + "@" + v
	case bi.Main.Path == dstModule:
		return "go run " + cmd // inside dstreplay's own module
	case bi.Main.Path != "":
		return "go run " + cmd
	}
	return ""
}

// builtOnTheFly reports whether exe is an executable the go command built
// to run at once (go run, go tool): in its build cache, or in one of its
// temporary go-build directories.
func builtOnTheFly(exe string) bool {
	var dirs []string
	if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		dirs = append(dirs, strings.TrimSpace(string(out)))
	}
	if beneathAny(exe, dirs) {
		return true
	}
	for d := filepath.Dir(exe); d != filepath.Dir(d); d = filepath.Dir(d) {
		if strings.HasPrefix(filepath.Base(d), "go-build") {
			return true
		}
	}
	return false
}

func beneathAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if d == "" || d == "off" {
			continue
		}
		if p, err := filepath.EvalSymlinks(d); err == nil {
			d = p
		}
		if rel, err := filepath.Rel(d, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// namesTool reports whether the go.mod of the module dir is in names cmd
// as a tool (a tool directive, alone or in a block).
func namesTool(dir, cmd string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			inBlock := false
			for _, line := range strings.Split(string(b), "\n") {
				if i := strings.Index(line, "//"); i >= 0 {
					line = line[:i]
				}
				f := strings.Fields(line)
				switch {
				case inBlock && len(f) == 1 && f[0] == ")":
					inBlock = false
				case inBlock && len(f) == 1 && f[0] == cmd:
					return true
				case len(f) == 2 && f[0] == "tool" && f[1] == "(":
					inBlock = true
				case len(f) == 2 && f[0] == "tool" && f[1] == cmd:
					return true
				}
			}
			return false
		}
		if d == filepath.Dir(d) {
			return false
		}
	}
}
