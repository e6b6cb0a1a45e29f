package rewrite

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goPkg is the directory and the build's files of this Go's package pkg.
func goPkg(t *testing.T, pkg string) (string, []string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}\n{{join .GoFiles \" \"}}", pkg).Output()
	if err != nil {
		t.Fatal(err)
	}
	dir, files, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return dir, strings.Fields(files)
}

// checkEdit checks that every hook of h goes into this Go's package, once,
// on the line of its brace, so that every line keeps its number; it
// returns the edited files.
func checkEdit(t *testing.T, h *stdHooks) map[string]string {
	t.Helper()
	dir, files := goPkg(t, h.pkg)
	edited, err := h.edit(dir, files)
	if err != nil {
		t.Fatal(err)
	}
	all := ""
	for path, text := range edited {
		all += text
		if filepath.Base(path) == "zz_dstreplay_sim.go" {
			continue
		}
		old, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := bytes.Count(old, []byte("\n")), strings.Count(text, "\n"); a != b {
			t.Errorf("%s: %d lines, was %d", path, b, a)
		}
	}
	for _, k := range h.hooks {
		if n := strings.Count(all, k.sig+" { "+k.prologue); n != 1 {
			t.Errorf("%s: hooked %d times", k.sig, n)
		}
	}
	return edited
}

// overlayOf writes the files of the hooks hs, for this Go, and an overlay
// file that puts them in; it returns the overlay's path.
func overlayOf(t *testing.T, hs ...*stdHooks) string {
	t.Helper()
	tmp := t.TempDir()
	replace := map[string]string{}
	for _, h := range hs {
		for path, text := range checkEdit(t, h) {
			to := filepath.Join(tmp, h.pkg+"_"+filepath.Base(path))
			if err := os.WriteFile(to, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			replace[path] = to
		}
	}
	data, err := json.Marshal(struct{ Replace map[string]string }{replace})
	if err != nil {
		t.Fatal(err)
	}
	overlay := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlay, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return overlay
}

// testWith runs the tests run of the package dir with the overlay, with and
// without the race detector, env set.
func testWith(t *testing.T, overlay, dir, run string, env ...string) {
	t.Helper()
	for _, race := range []string{"", "-race"} {
		args := []string{"test", "-count=1", "-overlay", overlay, "-run", run}
		if race != "" {
			args = append(args, race)
		}
		cmd := exec.Command("go", append(args, dir)...)
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go %s %s: %v\n%s", strings.Join(args, " "), dir, err, out)
		}
	}
}

// TestNetSimEdit: every hook goes into this Go's net, on the line of its
// brace, so that every line of net keeps its number.
func TestNetSimEdit(t *testing.T) {
	all := ""
	for _, text := range checkEdit(t, netSim) {
		all += text
	}
	if !strings.Contains(all, "type netFD struct {dstSim any;") {
		t.Error("netFD has no dstSim")
	}
}

// TestNetSimEditRefuses: a net unlike the one the hooks know (another
// release) is left as it is, with the reason.
func TestNetSimEditRefuses(t *testing.T) {
	dir, files := goPkg(t, "net")
	for _, c := range []struct {
		name, file, old, new, want string
	}{
		{"a signature changed", "fd_posix.go", "func (fd *netFD) Read(p []byte) (n int, err error) {",
			"func (fd *netFD) Read(p []byte, flags int) (n int, err error) {", `net's Read is "func (fd *netFD) Read(p []byte, flags int) (n int, err error)"`},
		{"a function gone", "tcpsockopt_posix.go", "func setNoDelay(", "func setNoDelayNow(", "net has no func setNoDelay"},
		{"a name the hooks use", "fd_posix.go", "type netFD struct {", "var dstSimulated int\n\ntype netFD struct {", "net declares dstSimulated"},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			tmp := t.TempDir()
			for _, f := range files {
				data, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if f == c.file {
					if !bytes.Contains(data, []byte(c.old)) {
						t.Fatalf("%s has no %q", f, c.old)
					}
					data = bytes.Replace(data, []byte(c.old), []byte(c.new), 1)
				}
				if err := os.WriteFile(filepath.Join(tmp, f), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := netSim.edit(tmp, files)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
	if _, err := netSim.edit(dir, []string{"fd_windows.go"}); err == nil {
		t.Error("a net without fd_unix.go is edited")
	}
}

// TestNetHooks runs sched/simnet's conformance suite, and its tests of
// Go's own types, with the hooks in this Go's package net, with and
// without the race detector: the simulated network behaves as Go's does
// through net's own TCPConn and TCPListener code.
func TestNetHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds package net and what imports it, twice")
	}
	testWith(t, overlayOf(t, netSim), "../../sched/simnet", "^(TestConformance|TestGoTypes|TestListenAddresses|TestRaceEdges|TestDNS)$", "DST_NET_HOOKED=1")
}
