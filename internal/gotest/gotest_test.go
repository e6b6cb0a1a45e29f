package gotest

import (
	"regexp"
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
