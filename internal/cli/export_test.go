package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dstgo/dst/trace"

	"github.com/dstgo/dst/sched/schedtest"
)

// HaveDlv reports whether dstreplay debug finds delve, for tests to skip
// without it.
func HaveDlv() bool { _, ok := lookDlv(); return ok }

// SaveTrace writes the trace of res, a run recorded with Options.Record,
// in a directory of the test's, under name, and returns its path.
func SaveTrace(tb testing.TB, res *schedtest.Result, name string) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), name)
	if err := res.WriteTrace(path); err != nil {
		tb.Fatal(err)
	}
	return path
}

// export of events at the ends of time (virtual times are the trace's own:
// any int64) writes valid JSON with every event. Regression (issue 26): it
// failed with a JSON marshalling message (the most negative time was
// written as "--9223372036854775.808", a slice's duration overflowed).
func TestExportExtremeTimes(t *testing.T) {
	times := []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, math.MaxInt64 - 1, math.MaxInt64, math.MaxInt64, -5, math.MinInt64}
	ev := func(i int64) trace.Event {
		e := loopEvent(i)
		if i > 0 {
			e.Time = times[(i-1)%int64(len(times))]
		}
		if i == 7 {
			e = trace.Event{Kind: trace.KindBlock, Step: e.Step, G: 1, Op: 5, Obj: 1, Time: math.MaxInt64}
		}
		return e
	}
	path := filepath.Join(t.TempDir(), "times.trace")
	const n = 40
	writeEventsTrace(t, path, n, ev, deadlock)
	out, errOut, code := runMain("export", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !json.Valid([]byte(out)) {
		t.Fatalf("not valid JSON:\n%s", out)
	}
	var doc struct {
		TraceEvents []struct {
			Ph   string
			Ts   json.Number
			Args map[string]any
		}
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	instants := 0
	for _, te := range doc.TraceEvents {
		if te.Ph != "i" {
			continue
		}
		instants++
		num, _ := te.Args["event"].(json.Number).Int64()
		if got, want := te.Args["time_ns"].(json.Number).String(), strconv.FormatInt(ev(num-1).Time, 10); got != want {
			t.Errorf("event %d: time_ns %s, want %s", num, got, want)
		}
	}
	if instants < n/2 {
		t.Errorf("%d instants for %d events", instants, n)
	}
	for _, m := range []micros{math.MinInt64, math.MaxInt64, -1, 0, 1234} {
		b, err := m.MarshalJSON()
		if err != nil || !json.Valid(b) {
			t.Errorf("micros(%d) = %s, %v", int64(m), b, err)
		}
	}
	if b, _ := micros(math.MinInt64).MarshalJSON(); string(b) != "-9223372036854775.808" {
		t.Errorf("micros(MinInt64) = %s", b)
	}
}

// export of a trace damaged in its middle writes the events before the
// damage as valid JSON, and names the damage with exit code 1.
func TestExportDamaged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.trace")
	writeEventsTrace(t, path, 5000, loopEvent, deadlock)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)*2/3] ^= 0xff
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runMain("export", path)
	if code != ExitFailure || !strings.Contains(errOut, "checksum mismatch") || !json.Valid([]byte(out)) {
		t.Errorf("export of a damaged trace: exit %d, valid JSON %v\n%s", code, json.Valid([]byte(out)), errOut)
	}
}
