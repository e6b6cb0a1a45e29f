package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/internal/cli"
	"github.com/dstgo/dst/replay"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/trace"
	"github.com/dstgo/dst/vtime"
)

// htmlPage is the part of the page's inline JSON the tests read.
type htmlPage struct {
	Title   string         `json:"title"`
	Outcome *trace.Outcome `json:"outcome"`
	Notice  string         `json:"notice"`
	N       int64          `json:"n"`
	Ev      struct {
		Kind []int8  `json:"k"`
		Step []int64 `json:"s"`
		G    []int32 `json:"g"`
		Time []int64 `json:"t"`
		Arg  []int64 `json:"a"`
		Text []int32 `json:"x"`
		Loc  []int32 `json:"l"`
	} `json:"ev"`
	Kinds []string         `json:"kinds"`
	Times map[int64]string `json:"times"`
	Strs  []string         `json:"strs"`
	Locs  []struct {
		Func string `json:"func"`
		File string `json:"file"`
		Line int    `json:"line"`
	} `json:"locs"`
	Src   map[string]map[int]string `json:"src"`
	Lanes []struct {
		G       int32   `json:"g"`
		Name    string  `json:"name"`
		End     string  `json:"end"`
		Failed  bool    `json:"failed"`
		Events  int64   `json:"events"`
		Runs    []int64 `json:"runs"`
		Blocked []int64 `json:"blocked"`
	} `json:"lanes"`
	Wakes  []int64 `json:"wakes"`
	Msgs   []int64 `json:"msgs"`
	Fail   []int64 `json:"fail"`
	Select int64   `json:"select"`
}

var dataScript = regexp.MustCompile(`(?s)<script type="application/json" id="dst-data">(.*?)</script>`)

// readPage reads the page at path and decodes its inline JSON.
func readPage(t *testing.T, path string) (string, *htmlPage) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.Contains(page, "</html>") {
		t.Fatalf("%s is not a whole HTML document", path)
	}
	m := dataScript.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("%s has no inline JSON", path)
	}
	var p htmlPage
	if err := json.Unmarshal([]byte(m[1]), &p); err != nil {
		t.Fatalf("%s: the inline JSON does not decode: %v", path, err)
	}
	return page, &p
}

// external finds what would make the page load something from elsewhere.
var external = regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*[a-z]*:?//|url\(|@import|https?://`)

// traceFacts is what the tests compare the page with, from the trace
// itself: every event's text line, and the goroutines.
type traceFacts struct {
	lines []string
	evs   []trace.Event
	gs    []int32
}

func readFacts(t *testing.T, path string) traceFacts {
	t.Helper()
	r, err := trace.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var f traceFacts
	labels := map[int32]string{}
	seen := map[int32]bool{}
	var preempts replay.Preemptions
	r.All(func(_ int64, ev trace.Event, err error) bool {
		if err != nil {
			return false
		}
		if ev.Kind == trace.KindObject {
			labels[ev.Obj] = trace.ObjectName(ev.Text, ev.Obj)
		}
		line := ev.Format(labels)
		if p, _ := preempts.Next(&ev); p { // the listings say so
			line = strings.Replace(line, " switch ", " preempt ", 1)
		}
		f.lines = append(f.lines, line)
		f.evs = append(f.evs, ev)
		seen[ev.G] = true
		switch ev.Kind {
		case trace.KindSpawn, trace.KindSwitch, trace.KindWake:
			seen[int32(ev.Arg)] = true
		}
		return true
	})
	for g := range seen {
		f.gs = append(f.gs, g)
	}
	slices.Sort(f.gs)
	return f
}

// checkPage checks what every page must be: self-contained, its events
// those of the trace with the same text lines, a lane per goroutine, spans
// within the events.
func checkPage(t *testing.T, page string, p *htmlPage, f traceFacts) {
	t.Helper()
	if loc := external.FindStringIndex(page); loc != nil {
		t.Errorf("the page refers to something outside it: %q", page[max(loc[0]-40, 0):min(loc[1]+40, len(page))])
	}
	if p.N != int64(len(f.lines)) || len(p.Ev.Kind) != len(f.lines) || len(p.Ev.Text) != len(f.lines) {
		t.Fatalf("the page has %d events (%d in its columns), the trace %d", p.N, len(p.Ev.Kind), len(f.lines))
	}
	for i, want := range f.lines {
		got := fmt.Sprintf("%d g%d %s %s", p.Ev.Step[i], p.Ev.G[i], p.Times[p.Ev.Time[i]], p.Strs[p.Ev.Text[i]])
		if got != want {
			t.Fatalf("event %d reads %q in the page, %q in the trace", i, got, want)
		}
		if l := f.evs[i].Loc; l.File != "" {
			loc := p.Locs[p.Ev.Loc[i]]
			if loc.File != l.File || loc.Line != l.Line || loc.Func != l.Func {
				t.Fatalf("event %d is at %+v in the page, %+v in the trace", i, loc, l)
			}
		} else if p.Ev.Loc[i] != -1 {
			t.Fatalf("event %d has a location in the page only", i)
		}
	}
	var gs []int32
	for _, l := range p.Lanes {
		gs = append(gs, l.G)
		for _, spans := range [][]int64{l.Runs, l.Blocked} {
			if len(spans)%2 != 0 {
				t.Fatalf("lane g%d: odd spans %v", l.G, spans)
			}
			for k := 0; k < len(spans); k += 2 {
				if spans[k] < 0 || spans[k] > spans[k+1] || spans[k+1] > p.N {
					t.Fatalf("lane g%d: span [%d, %d) outside the %d events", l.G, spans[k], spans[k+1], p.N)
				}
			}
		}
	}
	if !slices.Equal(gs, f.gs) {
		t.Errorf("lanes for %v, goroutines in the trace %v", gs, f.gs)
	}
}

func TestHTML(t *testing.T) {
	path := failingTrace(t)
	out, errOut, code := run("html", path)
	want := strings.TrimSuffix(path, ".trace") + ".html"
	if code != cli.ExitOK || errOut != "" || strings.TrimSpace(out) != want {
		t.Fatalf("exit %d, stdout %q (want %q), stderr %q", code, out, want, errOut)
	}
	page, p := readPage(t, want)
	f := readFacts(t, path)
	checkPage(t, page, p, f)

	// The failure: the block events of the three goroutines blocked
	// forever, in red, the last selected.
	if p.Outcome == nil || p.Outcome.Kind != "deadlock" {
		t.Fatalf("outcome %+v", p.Outcome)
	}
	if len(p.Fail) != 3 || p.Select != p.Fail[2] {
		t.Fatalf("fail %v, select %d: want the three goroutines' blocks, the last selected", p.Fail, p.Select)
	}
	for _, i := range p.Fail {
		if f.evs[i].Kind != trace.KindBlock {
			t.Errorf("failure event %d is %q, not a block", i, f.lines[i])
		}
	}
	ends := map[int32]string{}
	for _, l := range p.Lanes {
		ends[l.G] = l.End
		if l.Failed != (l.G != 0) {
			t.Errorf("lane g%d: failed=%v", l.G, l.Failed)
		}
	}
	wantEnds := map[int32]string{0: "", 1: "blocked in WaitGroup#1.Wait", 2: "blocked in Mutex#3.Lock", 3: "blocked in Mutex#2.Lock"}
	for g, e := range wantEnds {
		if ends[g] != e {
			t.Errorf("lane g%d ends %q, want %q", g, ends[g], e)
		}
	}
	for _, s := range []string{`id="failure"`, `class="fail"`, "deadlock: all goroutines are asleep", "full report", "held by goroutine 3"} {
		if !strings.Contains(page, s) {
			t.Errorf("the page lacks %q", s)
		}
	}
	// The source around the locations (lines 18 to 20), ±3 lines.
	src := p.Src[f.evs[p.Select].Loc.File]
	_, before := src[14]
	_, after := src[24]
	if !strings.Contains(src[20], "wg.Wait()") || src[15] == "" || src[23] == "" || before || after {
		t.Errorf("embedded source of bodies_test.go: %v", src)
	}

	// -o, and refusing to overwrite the trace.
	other := filepath.Join(t.TempDir(), "page.html")
	if out, _, code := run("html", "-o", other, path); code != cli.ExitOK || strings.TrimSpace(out) != other {
		t.Errorf("html -o: exit %d %q", code, out)
	}
	if _, err := os.Stat(other); err != nil {
		t.Error(err)
	}
	if _, e, code := run("html", "-o", path, path); code != cli.ExitUsage || !strings.Contains(e, "overwrite") {
		t.Errorf("html -o the trace: exit %d %q", code, e)
	}
	if o, _, code := run("html", "--help"); code != cli.ExitOK || !strings.Contains(o, "usage: dstreplay html") || !strings.Contains(o, "-o") {
		t.Errorf("html --help: exit %d\n%s", code, o)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 2 {
		t.Errorf("want the trace and its page only, found %v (a temporary file left behind?)", entries)
	}
}

// TestHTMLEscapes makes a panic whose message would end the page's script,
// and checks that it stays data, and that the panic is the failure.
func TestHTMLEscapes(t *testing.T) {
	const msg = "</script><script>alert(1)</script><!--"
	res, err := schedtest.Run(schedtest.Options{Seed: 1, Record: true}, func(t *schedtest.T) {
		done := chans.Make[int](0)
		sched.Go(func() { done.Send(1) })
		done.Recv()
		panic(msg)
	})
	if err != nil || res.Failure == nil {
		t.Fatalf("no failure: %v", err)
	}
	path := cli.SaveTrace(t, res, "panic.trace")
	if _, e, code := run("html", path); code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, e)
	}
	page, p := readPage(t, strings.TrimSuffix(path, ".trace")+".html")
	f := readFacts(t, path)
	checkPage(t, page, p, f)
	if strings.Contains(page, "<script>alert") {
		t.Error("the panic's message is in the page as markup")
	}
	if p.Outcome.Kind != "panic" || !strings.Contains(p.Outcome.Message, msg) {
		t.Errorf("outcome %+v", p.Outcome)
	}
	if len(p.Fail) != 1 || f.evs[p.Fail[0]].Kind != trace.KindPanic || p.Select != p.Fail[0] {
		t.Errorf("fail %v: want the panic event", p.Fail)
	}
	if len(p.Wakes) == 0 {
		t.Error("no wakes, though the goroutines hand off")
	}
}

// pingPongTrace records goroutines handing a value back and forth rounds
// times, sleeping between: wakes, and virtual time that moves.
func pingPongTrace(t *testing.T, rounds int) string {
	t.Helper()
	res, err := schedtest.Run(schedtest.Options{Seed: 3, Record: true, MaxSteps: 100 * rounds}, func(t *schedtest.T) {
		ping, pong := chans.Make[int](0), chans.Make[int](0)
		sched.Go(func() {
			for v := range ping.All() {
				vtime.Sleep(time.Millisecond)
				pong.Send(v)
			}
		})
		for i := range rounds {
			ping.Send(i)
			pong.Recv()
		}
		ping.Close()
	})
	if err != nil || res.Failure != nil {
		t.Fatal(err, res.Failure)
	}
	path := cli.SaveTrace(t, res, "pingpong.trace")
	return path
}

func TestHTMLBadInput(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.trace")
	if _, e, code := run("html", missing); code != cli.ExitUsage || !strings.Contains(e, missing) {
		t.Errorf("missing file: exit %d %q", code, e)
	}
	junk := filepath.Join(dir, "junk.trace")
	if err := os.WriteFile(junk, []byte("this is not a trace at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, e, code := run("html", junk); code != cli.ExitUsage || !strings.Contains(e, junk) || !strings.Contains(e, "not a trace") {
		t.Errorf("junk: exit %d %q", code, e)
	}
	for _, p := range []string{missing, junk} {
		if _, err := os.Stat(strings.TrimSuffix(p, ".trace") + ".html"); err == nil {
			t.Errorf("a page for %s", p)
		}
	}

	// A trace of several frames, cut short: the complete frames are shown,
	// and the page says it is cut, at its top and in its title; having
	// written that page, the command succeeded. Regression: it wrote the
	// page and exited with 1, a failure that leaves a file behind.
	full := pingPongTrace(t, 3000)
	b, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.trace")
	if err := os.WriteFile(cut, b[:len(b)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	out, e, code := run("html", cut)
	page := filepath.Join(dir, "cut.html")
	if code != cli.ExitOK || strings.TrimSpace(out) != page || !strings.Contains(e, "cut short") {
		t.Fatalf("truncated: exit %d\nstdout: %s\nstderr: %s", code, out, e)
	}
	text, p := readPage(t, page)
	f := readFacts(t, cut)
	checkPage(t, text, p, f)
	all := readFacts(t, full)
	whole := false // p.N ends a frame
	for i := int64(0); i <= p.N; i += int64(trace.FrameSize(i)) {
		whole = whole || i == p.N
	}
	if p.N == 0 || !whole || p.N >= int64(len(all.lines)) {
		t.Errorf("the cut trace shows %d of %d events: want whole frames", p.N, len(all.lines))
	}
	if !strings.Contains(p.Notice, "cut short") || !strings.Contains(text, `id="notice"`) || p.Outcome != nil || !strings.Contains(text, "outcome: unknown") ||
		!strings.Contains(text, "(cut short)</title>") {
		t.Errorf("truncated page: notice %q, outcome %+v", p.Notice, p.Outcome)
	}
	// Nothing else is left beside the page: it was written whole, at once.
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range left {
		if n := filepath.Base(f); n != "junk.trace" && n != "cut.trace" && n != "cut.html" {
			t.Errorf("%s is left beside the page", n)
		}
	}

	// Cut before its first frame's end: no events, the header and the
	// notice, and empty lists rather than nulls for the script.
	small, err := os.ReadFile(failingTrace(t))
	if err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.trace")
	if err := os.WriteFile(empty, withoutFrames(t, small), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, e, code := run("html", empty); code != cli.ExitOK || !strings.Contains(e, "cut short") {
		t.Fatalf("cut in its first frame: exit %d %q", code, e)
	}
	text, p = readPage(t, filepath.Join(dir, "empty.html"))
	if p.N != 0 || p.Notice == "" || !strings.Contains(text, "schedtest.Explore") {
		t.Errorf("cut in its first frame: %d events, notice %q", p.N, p.Notice)
	}
	for _, s := range []string{`"lanes":[]`, `"wakes":[]`, `"fail":[]`, `"strs":[]`, `"k":[]`} {
		if !strings.Contains(text, s) {
			t.Errorf("the page of no events lacks %s", s)
		}
	}

	// A frame that does not decode: the page shows the events before it.
	bad := bytes.Clone(b)
	for i := len(bad) / 2; i < len(bad)/2+16; i++ {
		bad[i] ^= 0x5a
	}
	corrupt := filepath.Join(dir, "corrupt.trace")
	if err := os.WriteFile(corrupt, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	out, e, code = run("html", corrupt)
	if code != cli.ExitOK || strings.TrimSpace(out) == "" || !strings.Contains(e, corrupt) {
		t.Fatalf("corrupt: exit %d\nstdout: %s\nstderr: %s", code, out, e)
	}
	_, p = readPage(t, strings.TrimSpace(out))
	if p.Notice == "" || p.N >= int64(len(all.lines)) {
		t.Errorf("corrupt page: %d events, notice %q", p.N, p.Notice)
	}
}

// withoutFrames cuts the trace b in its first frame: the longest prefix
// that opens with no event.
func withoutFrames(t *testing.T, b []byte) []byte {
	t.Helper()
	for k := len(b) - 1; k > 0; k-- {
		r, err := trace.Open(bytes.NewReader(b[:k]), int64(k))
		if err != nil {
			continue
		}
		n := r.Len()
		r.Close()
		if n == 0 {
			return b[:k]
		}
	}
	t.Fatal("no prefix of the trace opens without events")
	return nil
}

// Colors the page draws with (see timeline.html).
var (
	failColor    = [3]uint8{0xdc, 0x26, 0x26}
	runColor     = [3]uint8{0x25, 0x63, 0xeb}
	blockedColor = [3]uint8{0xfe, 0xd7, 0xaa}
	wakeColor    = [3]uint8{0x16, 0xa3, 0x4a}
)

// browser finds a Chromium to run headless: skipped without one, unless
// DST_REQUIRE_TOOLS=1 (as in CI) makes that a failure.
func browser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("DST_REQUIRE_TOOLS") == "1" {
		t.Fatal("no chromium on PATH, and DST_REQUIRE_TOOLS=1")
	}
	t.Skip("no chromium on PATH (set DST_REQUIRE_TOOLS=1 to make this a failure)")
	return ""
}

// headless runs the browser on url with args and returns its stdout.
func headless(t *testing.T, bin, url string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--window-size=1200,800", "--force-device-scale-factor=1"}, args...)
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	cmd.WaitDelay = 5 * time.Second // its helpers may hold the pipes
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v (timeout: %v)\nstderr (last part):\n%s", bin, strings.Join(args, " "), err, ctx.Err(), tail(stderr.String(), 2000))
	}
	return stdout.Bytes()
}

func tail(s string, n int) string { return s[max(len(s)-n, 0):] }

// canvasRect reads the canvas's place in the page, which the script notes
// on it, from a DOM dump.
func canvasRect(t *testing.T, dom string) image.Rectangle {
	t.Helper()
	m := regexp.MustCompile(`<canvas id="canvas"[^>]*data-rect="(\d+),(\d+),(\d+),(\d+)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the canvas has no data-rect: the script did not lay it out")
	}
	v := make([]int, 4)
	for i := range v {
		v[i], _ = strconv.Atoi(m[i+1])
	}
	r := image.Rect(v[0], v[1], v[0]+v[2], v[1]+v[3])
	if r.Dx() < 400 || r.Dy() < 100 {
		t.Fatalf("the canvas is %v: too small", r)
	}
	return r
}

// colorCount counts the pixels of img in r within a few levels of c.
func colorCount(img image.Image, r image.Rectangle, c [3]uint8) int {
	n := 0
	near := func(a uint32, b uint8) bool { d := int(a>>8) - int(b); return d >= -6 && d <= 6 }
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if near(cr, c[0]) && near(cg, c[1]) && near(cb, c[2]) {
				n++
			}
		}
	}
	return n
}

func screenshot(t *testing.T, bin, url string) image.Image {
	t.Helper()
	shot := filepath.Join(t.TempDir(), "shot.png")
	headless(t, bin, url, "--screenshot="+shot)
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the screenshot: %v", err)
	}
	if s := img.Bounds().Size(); s.X != 1200 || s.Y != 800 {
		t.Fatalf("the screenshot is %v, want 1200x800", s)
	}
	return img
}

// TestHTMLChromium opens pages in headless Chromium: the DOM after the
// script ran, and a screenshot checked for what must be drawn.
func TestHTMLChromium(t *testing.T) {
	bin := browser(t)
	path := failingTrace(t)
	if _, e, code := run("html", path); code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, e)
	}
	_, p := readPage(t, strings.TrimSuffix(path, ".trace")+".html")
	f := readFacts(t, path)
	// An event with a location that is not the one selected by default, to
	// select with #event=N.
	n := -1
	for i, ev := range f.evs {
		if ev.Kind == trace.KindOp && ev.Loc.Line == 19 && int64(i) != p.Select {
			n = i
			break
		}
	}
	if n < 0 {
		t.Fatal("no op event at bodies_test.go:19 in the trace")
	}
	abs, err := filepath.Abs(strings.TrimSuffix(path, ".trace") + ".html")
	if err != nil {
		t.Fatal(err)
	}
	// #event=N takes the number show gives the event. Regression: the page
	// numbered events from 0, show and the stepper from 1.
	num := showNumber(t, path, f.lines[n])
	url := "file://" + filepath.ToSlash(abs) + "#event=" + strconv.Itoa(num)

	dom := string(headless(t, bin, url, "--dump-dom"))
	if !strings.Contains(dom, `data-ready="1"`) {
		t.Fatalf("the script did not finish:\n%s", tail(dom, 3000))
	}
	lanes := regexp.MustCompile(`<div class="(lane(?: failed)?)" data-g="(\d+)"`).FindAllStringSubmatch(dom, -1)
	var gs []int32
	for _, m := range lanes {
		g, _ := strconv.Atoi(m[2])
		gs = append(gs, int32(g))
		if failed := m[1] == "lane failed"; failed != (g != 0) {
			t.Errorf("lane label g%d has class %q", g, m[1])
		}
	}
	if !slices.Equal(gs, f.gs) {
		t.Errorf("lane labels for %v, goroutines %v", gs, f.gs)
	}
	m := regexp.MustCompile(`(?s)<div id="details">(.*?)</div>\s*<script`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatal("no details panel")
	}
	det := m[1]
	srcLine := strings.TrimSpace(strings.Split(readSource(t, f.evs[n].Loc.File), "\n")[18])
	for _, want := range []string{
		`id="ev-line">` + f.lines[n] + "<",
		fmt.Sprintf("<td>event</td><td>%d of %d", num, len(f.lines)),
		"bodies_test.go:19",
		f.evs[n].Loc.Func,
		`id="ev-src"`,
		srcLine,
	} {
		if !strings.Contains(det, want) {
			t.Errorf("the details of event %d lack %q:\n%s", n, want, det)
		}
	}
	if !regexp.MustCompile(`<span id="failure">deadlock: all goroutines are asleep[^<]*</span>`).MatchString(dom) {
		t.Error("no failure banner")
	}
	// The preemption is drawn, and the legend says what its mark means.
	if !strings.Contains(dom, `data-drawn="spans=`) || !strings.Contains(dom, "fails=3") || !strings.Contains(dom, "preempts=1") {
		t.Errorf("the canvas notes %q", regexp.MustCompile(`data-drawn="[^"]*"`).FindString(dom))
	}
	legend := regexp.MustCompile(`(?s)<div id="legend">(.*?)</div>`).FindStringSubmatch(dom)
	if legend == nil {
		t.Fatal("no legend")
	}
	for _, want := range []string{"running", "blocked", "wakes", "preemption", "the failure", "block", "fault"} {
		if !strings.Contains(legend[1], ">"+want+"<") {
			t.Errorf("the legend lacks %q:\n%s", want, legend[1])
		}
	}
	rect := canvasRect(t, dom)

	img := screenshot(t, bin, url)
	if c := colorCount(img, rect, failColor); c < 3*7*10 {
		t.Errorf("%d pixels of the failure's red in the canvas %v, want the three marks", c, rect)
	}
	if c := colorCount(img, rect, runColor); c < 500 {
		t.Errorf("%d pixels of run bars in the canvas", c)
	}
	if c := colorCount(img, rect, blockedColor); c < 500 {
		t.Errorf("%d pixels of blocked shading in the canvas", c)
	}
	header := image.Rect(0, 0, 1200, rect.Min.Y)
	if c := colorCount(img, header, failColor); c < 50 {
		t.Errorf("%d pixels of red in the header: no failure banner drawn", c)
	}
	if white := colorCount(img, img.Bounds(), [3]uint8{255, 255, 255}); white > 1200*800*97/100 {
		t.Errorf("the page is blank: %d of %d pixels white", white, 1200*800)
	}

	// A trace without a complete frame: the script still runs, and the
	// page says why it shows nothing.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(filepath.Dir(abs), "cut.trace")
	if err := os.WriteFile(cut, withoutFrames(t, b), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, code := run("html", cut); code != cli.ExitOK {
		t.Fatalf("cut: exit %d", code)
	}
	dom = string(headless(t, bin, "file://"+filepath.ToSlash(strings.TrimSuffix(cut, ".trace")+".html"), "--dump-dom"))
	if !strings.Contains(dom, `data-ready="1"`) || !strings.Contains(dom, `<div id="notice">The trace was cut short`) {
		t.Errorf("the page of a cut trace:\n%s", tail(dom, 2000))
	}

	// A run that passes, with handoffs, on the time axis: wakes are drawn,
	// and nothing in the failure's red.
	pp := pingPongTrace(t, 10)
	if _, e, code := run("html", pp); code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, e)
	}
	abs, _ = filepath.Abs(strings.TrimSuffix(pp, ".trace") + ".html")
	url = "file://" + filepath.ToSlash(abs) + "#axis=time"
	dom = string(headless(t, bin, url, "--dump-dom"))
	if !strings.Contains(dom, `<button id="axis-time" title="virtual time (t toggles)" class="on">`) || !strings.Contains(dom, "fails=0") {
		t.Errorf("#axis=time: %s", regexp.MustCompile(`<button id="axis-[^>]*>|data-drawn="[^"]*"`).FindAllString(dom, -1))
	}
	rect = canvasRect(t, dom)
	img = screenshot(t, bin, url)
	if c := colorCount(img, rect, wakeColor); c < 100 {
		t.Errorf("%d pixels of wake lines in the canvas", c)
	}
	if c := colorCount(img, rect, failColor); c != 0 {
		t.Errorf("%d pixels of the failure's red in a run that passed", c)
	}
}

func readSource(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// showNumber is the number dstreplay show gives the event whose line is
// line.
func showNumber(t *testing.T, path, line string) int {
	t.Helper()
	out, _, _ := run("show", path)
	for _, l := range strings.Split(out, "\n") {
		num, rest, ok := strings.Cut(strings.TrimSpace(l), "  ")
		if ok && rest == line {
			n, err := strconv.Atoi(num)
			if err != nil {
				t.Fatalf("show's line %q has no number", l)
			}
			return n
		}
	}
	t.Fatalf("show does not list %q:\n%s", line, out)
	return 0
}

// A trace damaged before the page's events: the page and the command say
// how many events could be read and that the page shows none of them.
// Regression (found in an attack, fixed): html said "the page shows the
// 102300000 events before it" of a page that showed none.
func TestHTMLDamagedBeforeThePage(t *testing.T) {
	b, err := os.ReadFile(pingPongTrace(t, 3000))
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/3] ^= 0xff
	bad := filepath.Join(t.TempDir(), "bad.trace")
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, e, _ := run("html", "-events", "100", bad)
	m := regexp.MustCompile(`Shown: none of the (\d+) events that could be read, which come before the page's first`).FindStringSubmatch(e)
	if m == nil {
		t.Fatalf("html does not say that the page shows none of the events read:\n%s", e)
	}
	_, p := readPage(t, strings.TrimSuffix(bad, ".trace")+".html")
	if p.N != 0 || !strings.Contains(p.Notice, "Shown: none of the "+m[1]+" events before the damage") {
		t.Errorf("the page holds %d events, notice %q", p.N, p.Notice)
	}
}
