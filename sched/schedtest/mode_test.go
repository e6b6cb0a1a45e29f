package schedtest

import (
	"strings"
	"testing"
)

// TestCannotReplayAcrossHTTPStacks: a trace recorded with net/http on the
// scheduler is not replayed by a binary that runs it natively, nor the
// other way round (the saved traces of a -wrap run replayed first by a
// -wrap -rewrite=net/http/... run diverged at their first net/http event);
// the same stack, whichever flags gave it, or another dependency named,
// replay. -wrap runs it on the scheduler unless -nativehttp.
func TestCannotReplayAcrossHTTPStacks(t *testing.T) {
	native := mode{rewritten: true, wrap: true, nativeHTTP: true, rewrite: "..."}
	web := mode{rewritten: true, wrap: true, rewrite: "..."}
	named := mode{rewritten: true, wrap: true, nativeHTTP: true, rewrite: "...,net/http/..."}
	other := mode{rewritten: true, wrap: true, rewrite: "...,golang.org/x/sync/..."}
	unwrapped := mode{rewritten: true, rewrite: "..."}
	for _, c := range []struct {
		rec, cur mode
		want     string
	}{
		{native, web, "net/http run natively"},
		{web, native, "net/http on the scheduler"},
		{web, web, ""},
		{web, named, ""},
		{web, other, ""},
		{native, unwrapped, ""},
		{unwrapped, web, "net/http run natively"},
		{mode{rewritten: true, rewrite: "net/http"}, unwrapped, "net/http on the scheduler"},
		{mode{rewritten: true, rewrite: "none,net/..."}, unwrapped, "net/http on the scheduler"},
		{mode{rewritten: true, rewrite: "none,net/http/httptest"}, unwrapped, "net/http on the scheduler"},
		{mode{rewritten: true, rewrite: "none,crypto/tls"}, unwrapped, "net/http on the scheduler"},
		{mode{rewritten: true, rewrite: "none,net/httpx"}, unwrapped, ""},
	} {
		got := cannotReplay(c.rec, c.cur, "")
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("recorded %+v, replayed under %+v: %q, want %q", c.rec, c.cur, got, c.want)
		}
	}
}

// TestModeNativeHTTP: -nativehttp in the marker, and in a trace's header,
// is -wrap's HTTP stack left native, and the command that runs the test
// again says it.
func TestModeNativeHTTP(t *testing.T) {
	t.Setenv("DST_REWRITTEN", "-wrap -nativehttp -rewrite=...")
	m := currentMode()
	if !m.wrap || !m.nativeHTTP || m.httpOnScheduler() {
		t.Errorf("the marker's mode %+v: want -wrap with native HTTP", m)
	}
	if got := strings.Join(m.command(), " "); !strings.Contains(got, " test -wrap -nativehttp -rewrite=...") {
		t.Errorf("the command %q does not keep -nativehttp", got)
	}
	h := plan{}.header(Options{}, "TestX", nil, nil, false)
	if r := recordedMode(h); r != m {
		t.Errorf("the header's options %q give %+v, want %+v", h.Options, r, m)
	}
}
