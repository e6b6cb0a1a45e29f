package hunt

import (
	"bytes"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	st, f, err := Parse([]byte(`dst-hunt {"test":"TestX","worker":1,"execs":1234,"corpus":17,"cover":311,"failures":2,"new":3,"final":true}` + "\r"))
	if err != nil || f != nil {
		t.Fatalf("status line: %v %v", f, err)
	}
	want := StatusLine{Test: "TestX", Worker: 1, Execs: 1234, Corpus: 17, Cover: 311, Failures: 2, New: 3, Final: true}
	if *st != want {
		t.Errorf("status: got %+v, want %+v", *st, want)
	}

	st, f, err = Parse([]byte(`dst-hunt-failure {"test":"TestX","worker":0,"kind":"deadlock","message":"all goroutines are blocked","trace":"/a/b.trace","entropy":"/a/b.input","before":{"steps":120,"preemptions":9,"goroutines":4,"values":130},"after":{"steps":31,"preemptions":2,"goroutines":3,"values":12,"Sum":99},"later":1}`))
	if err != nil || st != nil {
		t.Fatalf("failure line: %v %v", st, err)
	}
	wantF := FailureLine{Test: "TestX", Kind: "deadlock", Message: "all goroutines are blocked", Trace: "/a/b.trace", Entropy: "/a/b.input",
		Before: Size{Steps: 120, Preemptions: 9, Goroutines: 4, Values: 130}, After: Size{Steps: 31, Preemptions: 2, Goroutines: 3, Values: 12, Sum: 99}}
	if *f != wantF {
		t.Errorf("failure: got %+v, want %+v", *f, wantF)
	}

	for _, line := range []string{"", "PASS", "--- FAIL: TestX (0.00s)", "dst-hunter {}", "dst-hunt", "  dst-hunt {}"} {
		if st, f, err := Parse([]byte(line)); st != nil || f != nil || err != nil {
			t.Errorf("%q: got %v %v %v, want other output", line, st, f, err)
		}
	}
	for _, line := range []string{`dst-hunt {"execs":`, `dst-hunt-failure not json`, `dst-hunt {"execs":"many"}`} {
		if _, _, err := Parse([]byte(line)); err == nil {
			t.Errorf("%q: no error", line)
		}
	}
}

// What a worker prints, the coordinator reads back, line by line.
func TestPrintParse(t *testing.T) {
	st := StatusLine{Test: "TestX", Worker: 3, Execs: 1 << 40, Corpus: 9, Cover: 100, Failures: 1, New: 7, Final: true}
	f := FailureLine{Test: "TestX/sub", Worker: 3, Kind: "leak", Message: "a\nmultiline \"message\"", Trace: "/t/x.trace", Entropy: "/t/x.input",
		Before: Size{Steps: 50, Preemptions: 4, Goroutines: 3, Values: 60, Sum: 1}, After: Size{Steps: 10, Preemptions: 1, Goroutines: 2, Values: 12}}
	var out bytes.Buffer
	if err := Print(&out, st); err != nil {
		t.Fatal(err)
	}
	if err := Print(&out, &f); err != nil {
		t.Fatal(err)
	}
	if err := Print(&out, 42); err == nil {
		t.Error("printing an int: no error")
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", out.String())
	}
	gotSt, _, err := Parse([]byte(lines[0]))
	if err != nil || gotSt == nil || *gotSt != st {
		t.Errorf("status: got %+v %v, want %+v", gotSt, err, st)
	}
	_, gotF, err := Parse([]byte(lines[1]))
	if err != nil || gotF == nil || *gotF != f {
		t.Errorf("failure: got %+v %v, want %+v", gotF, err, f)
	}
}
