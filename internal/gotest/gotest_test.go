package gotest

import (
	"regexp"
	"strings"
	"testing"
)

func TestRunPattern(t *testing.T) {
	for name, want := range map[string]string{
		"TestX":          "^TestX$",
		"TestX/sub_case": "^TestX$/^sub_case$",
		"TestX/a.b+c":    `^TestX$/^a\.b\+c$`,
	} {
		if got := RunPattern(name); got != want {
			t.Errorf("RunPattern(%q) = %q, want %q", name, got, want)
		}
	}
	// Each part matches its own name and not a longer one.
	re := regexp.MustCompile(`^TestX$`)
	if !re.MatchString("TestX") || re.MatchString("TestXY") {
		t.Error("the pattern is not anchored")
	}
}

func TestCheckPackage(t *testing.T) {
	for _, ok := range []string{"github.com/dstgo/dst/examples/bank", "fmt", "example.com/a_b/c-d/e~f/g++", "gopkg.in/yaml.v3"} {
		if err := CheckPackage(ok); err != nil {
			t.Errorf("CheckPackage(%q) = %v, want nil", ok, err)
		}
	}
	for bad, why := range map[string]string{
		"":                                  "empty",
		`-toolexec=/bin/sh -c "touch x" sh`: "begins with '-'",
		"-overlay=/tmp/o.json":              "begins with '-'",
		"/etc/passwd":                       "absolute file path",
		"./x":                               "begins with a dot",
		"a/../b":                            "begins with a dot",
		"a//b":                              "empty element",
		"a/":                                "empty element",
		"a/b.":                              "ends with a dot",
		"a/-b":                              "begins with '-'",
		"a b":                               "character ' '",
		"a\nb":                              `character '\n'`,
		"a\x1b[2Jb":                         `character '\x1b'`,
		"a@v1":                              "character '@'",
		"a=b":                               "character '='",
		"\xff":                              "not valid UTF-8",
		"std":                               "set of packages",
		"all":                               "set of packages",
		"cmd":                               "set of packages",
		"example.com/...":                   "pattern",
		"...":                               "pattern",
		"command-line-arguments":            "files given on its command line",
		"x.go":                              "reads as a file",
	} {
		err := CheckPackage(bad)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("CheckPackage(%q) = %v, want an error saying %q", bad, err, why)
		}
	}
}

func TestCheckPattern(t *testing.T) {
	for _, ok := range []string{"golang.org/x/sync/...", "golang.org/x/sync", "golang.org/x/sy..."} {
		if err := CheckPattern(ok); err != nil {
			t.Errorf("CheckPattern(%q) = %v, want nil", ok, err)
		}
	}
	for bad, why := range map[string]string{
		"...":              "every package",
		"/...":             "every package",
		"a/.../b":          "may only end",
		"-toolexec=x/...":  "begins with '-'",
		"a b/...":          "character ' '",
		"golang.org/x\t/x": `character '\t'`,
	} {
		err := CheckPattern(bad)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("CheckPattern(%q) = %v, want an error saying %q", bad, err, why)
		}
	}
}

func TestCheckTestName(t *testing.T) {
	for _, ok := range []string{"TestX", "Test", "Test_x", "TestÄ", "FuzzX/seed#0", "BenchmarkX/n=10", "ExampleT_M",
		"TestX/-1", "TestX/a.b+c/#00", `TestX/\x1b`, "TestX/ünïcode"} {
		if err := CheckTestName(ok); err != nil {
			t.Errorf("CheckTestName(%q) = %v, want nil", ok, err)
		}
	}
	for bad, why := range map[string]string{
		"":                        "not a test function",
		"Testx":                   "not a test function",
		"-test.v":                 "not a test function",
		"-run=x":                  "not a test function",
		"TestX -toolexec=sh":      "not a test function",
		"TestX\n":                 "not a test function",
		"sched.Explore":           "not a test function",
		"TestX/":                  "empty subtest",
		"TestX//a":                "empty subtest",
		"TestX/a b":               "character ' '",
		"TestX/a\x1b]0;pwned\x07": `character '\x1b'`,
		"TestX/a\rb":              `character '\r'`,
		"TestX/\u202eevil":        `character '\u202e'`,
		"TestX/\xff":              "not valid UTF-8",
	} {
		err := CheckTestName(bad)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("CheckTestName(%q) = %v, want an error saying %q", bad, err, why)
		}
	}
	// The pattern of every valid name begins with ^: never a flag.
	if p := RunPattern("TestX/-test.v"); !strings.HasPrefix(p, "^") || p != `^TestX$/^-test\.v$` {
		t.Errorf("RunPattern = %q", p)
	}
}
