package schedtest

import (
	"strings"
	"testing"
)

// TestCannotReplayAcrossHTTPStacks: a trace recorded with net/http on the
// scheduler is not replayed by a binary that runs it natively, nor the
// other way round (the saved traces of a -wrap run replayed first by a
// -wrap -rewrite=net/http/... run diverged at their first net/http event);
// the same flags, or another dependency named, replay.
func TestCannotReplayAcrossHTTPStacks(t *testing.T) {
	plain := mode{rewritten: true, wrap: true, rewrite: "..."}
	web := mode{rewritten: true, wrap: true, rewrite: "...,net/http/..."}
	other := mode{rewritten: true, wrap: true, rewrite: "...,golang.org/x/sync/..."}
	for _, c := range []struct {
		rec, cur mode
		want     string
	}{
		{plain, web, "net/http run natively"},
		{web, plain, "net/http on the scheduler"},
		{web, web, ""},
		{plain, other, ""},
		{mode{rewritten: true, rewrite: "net/http"}, plain, "net/http on the scheduler"},
		{mode{rewritten: true, rewrite: "none,net/..."}, plain, "net/http on the scheduler"},
		{mode{rewritten: true, rewrite: "none,net/http/httptest"}, plain, "net/http on the scheduler"},
		{mode{rewritten: true, rewrite: "none,net/httpx"}, plain, ""},
	} {
		got := cannotReplay(c.rec, c.cur, "")
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("recorded %q, replayed under %q: %q, want %q", c.rec.rewrite, c.cur.rewrite, got, c.want)
		}
	}
}
