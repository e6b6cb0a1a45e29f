package schedtest

import (
	"strings"
	"testing"
	"time"
)

// TestNoChildOfAChild: a process that runChild started, or that a test
// started under it, starts no child of its own (a peer that fails must
// not start peers).
func TestNoChildOfAChild(t *testing.T) {
	t.Setenv(childEnv, "1")
	out, err := runChild(t, time.Minute, false, nil)
	if err == nil || !strings.Contains(err.Error(), "starts no child of its own") || out != "" {
		t.Fatalf("got %q, %v", out, err)
	}
}
