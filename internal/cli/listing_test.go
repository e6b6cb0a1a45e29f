package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/trace"
)

func runCLI(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := Main(args, &out, &errb); code != ExitOK {
		t.Fatalf("dstreplay %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

// showLines are show's event lines: the number it gives each event, by
// index, and the line.
func showLines(t *testing.T, out string) (nums []int64, lines []string) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		num, rest, ok := strings.Cut(strings.TrimSpace(l), "  ")
		n, err := strconv.ParseInt(num, 10, 64)
		if !ok || err != nil {
			t.Fatalf("show's line %q has no event number", l)
		}
		nums, lines = append(nums, n), append(lines, rest)
	}
	return nums, lines
}

// Every command numbers an event the same way: show, the stepper, the
// summary's preemptions, export (and html, in TestHTMLChromium). Regression:
// html numbered from 0, and show did not number events at all.
func TestOneEventNumbering(t *testing.T) {
	path := deadlockTrace(t)
	nums, lines := showLines(t, runCLI(t, "show", path))
	m := stepperOn(t, path)
	if int64(len(nums)) != m.c.Len() {
		t.Fatalf("show lists %d events of %d", len(nums), m.c.Len())
	}
	current := regexp.MustCompile(`▶\s+(\d+)  (.*)$`)
	for i := range m.c.Len() {
		if err := m.c.Goto(i); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range m.eventLines(3) {
			if mm := current.FindStringSubmatch(ansi.Strip(l)); mm != nil {
				got = mm[1:]
			}
		}
		if got == nil || got[0] != strconv.FormatInt(nums[i], 10) || got[1] != lines[i] {
			t.Fatalf("event at index %d: the stepper lists %q, show %d %q", i, got, nums[i], lines[i])
		}
		if head := ansi.Strip(m.headerLines()[1]); !strings.HasPrefix(head, "event "+strconv.FormatInt(nums[i], 10)+"/") {
			t.Fatalf("event at index %d: the stepper's header says %q, show %d", i, head, nums[i])
		}
	}

	// The summary names the preemption by the number show gives it, and
	// show's line for it says preempt.
	sum := runCLI(t, "summary", path)
	mm := regexp.MustCompile(`\(event (\d+)\): g(\d+) preempted`).FindStringSubmatch(sum)
	if mm == nil {
		t.Fatalf("the summary names no preemption:\n%s", sum)
	}
	n, _ := strconv.ParseInt(mm[1], 10, 64)
	k := -1
	for i, x := range nums {
		if x == n {
			k = i
		}
	}
	if k < 0 || !strings.Contains(lines[k], " g"+mm[2]+" ") || !strings.Contains(lines[k], " "+preemptWord+" to=") {
		t.Fatalf("the summary's preemption is event %d; show lists %q", n, lines[max(k, 0)])
	}

	// export gives each instant the same number.
	var doc struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal([]byte(runCLI(t, "export", path)), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ev := range doc.TraceEvents {
		if ev.Ph == "i" && ev.Args["event"] == float64(n) {
			found = strings.HasPrefix(ev.Name, preemptWord)
		}
	}
	if !found {
		t.Errorf("export has no preemption numbered %d", n)
	}
}

// The summary counts preemptions as the engine does, and lists each one it
// counts (TestPreemptionsAgreeWithTheEngine in package replay checks the
// rule against the engine's own count on many schedules).
func TestSummaryListsEveryPreemption(t *testing.T) {
	for _, path := range []string{deadlockTrace(t), preemptyTrace(t)} {
		sum := runCLI(t, "summary", path)
		mm := regexp.MustCompile(`of which preemptions: (\d+)\n((?:  .*\n)*)`).FindStringSubmatch(sum)
		if mm == nil {
			t.Fatalf("no preemption count:\n%s", sum)
		}
		count, _ := strconv.Atoi(mm[1])
		listed := strings.Count(mm[2], " preempted")
		if more := regexp.MustCompile(`… and (\d+) more`).FindStringSubmatch(mm[2]); more != nil {
			n, _ := strconv.Atoi(more[1])
			listed += n
		}
		if count == 0 || listed != count {
			t.Errorf("the summary counts %d preemptions and lists %d:\n%s", count, listed, sum)
		}
		_, lines := showLines(t, runCLI(t, "show", "-op", preemptWord, path))
		if len(lines) != count {
			t.Errorf("show -op preempt lists %d events, the summary counts %d", len(lines), count)
		}
	}
}

// preemptyTrace records a run with more preemptions than the summary
// lists.
func preemptyTrace(t *testing.T) string {
	t.Helper()
	res, err := schedtest.Run(schedtest.Options{Seed: 3, Strategy: "random", Record: true}, func(t *schedtest.T) {
		var wg sched.WaitGroup
		for range 3 {
			wg.Go(func() {
				for range 30 {
					sched.Yield()
				}
			})
		}
		wg.Wait()
	})
	if err != nil || res.Failure != nil {
		t.Fatal(err, res.Failure)
	}
	if res.Preemptions <= maxListedPreemptions {
		t.Fatalf("%d preemptions: want more than the summary lists", res.Preemptions)
	}
	return SaveTrace(t, res, "preempty.trace")
}

// faultyTrace records a run through many fault points, of which few fire.
func faultyTrace(t *testing.T) string {
	t.Helper()
	names := []string{"db.timeout", "db.lost", "net.drop", "disk.full"}
	faults := map[string]float64{}
	for _, n := range names {
		faults[n] = 0.1
	}
	res, err := schedtest.Run(schedtest.Options{Seed: 4, Strategy: "random", Record: true, Faults: faults}, func(t *schedtest.T) {
		for range 40 {
			for _, n := range names {
				sched.Fault(n)
			}
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatal(err, res.Failure)
	}
	return SaveTrace(t, res, "faulty.trace")
}

// Fault points that did not fire are hidden from the listings unless asked
// for; those that fired stay. Regression: a run with faults listed every
// draw, burying what happened.
func TestUnfiredFaultsHidden(t *testing.T) {
	path := faultyTrace(t)
	unfired := regexp.MustCompile(`fault "[^"]*" fired=0`)
	fired := regexp.MustCompile(`fault "[^"]*" fired=1`)
	out := runCLI(t, "show", path)
	all := runCLI(t, "show", "-faults", path)
	nUnfired, nFired := len(unfired.FindAllString(all, -1)), len(fired.FindAllString(all, -1))
	if nUnfired == 0 || nFired == 0 {
		t.Fatalf("show -faults lists %d unfired and %d fired fault points: want some of each", nUnfired, nFired)
	}
	if unfired.MatchString(out) || len(fired.FindAllString(out, -1)) != nFired {
		t.Errorf("show lists unfired fault points, or not every fired one:\n%s", out)
	}
	if !strings.Contains(out, "# "+strconv.Itoa(nUnfired)+" fault points that did not fire are hidden (-faults shows them)") {
		t.Errorf("show does not say what it hid:\n%s", out)
	}

	// The stepper: hidden as it steps, shown after a.
	m := stepperOn(t, path)
	seen := func() (un, f int) {
		press(m, "home")
		for {
			if e := m.event(t); unfiredFault(&e) {
				un++
			} else if e.Kind == trace.KindFault && e.Arg == 1 {
				f++
			}
			at := m.c.Index()
			press(m, "j")
			if m.c.Index() == at {
				return un, f
			}
		}
	}
	if un, f := seen(); un != 0 || f != nFired {
		t.Errorf("the stepper steps through %d unfired and %d fired fault points: want 0 and %d", un, f, nFired)
	}
	press(m, "a")
	if un, f := seen(); un != nUnfired || f != nFired {
		t.Errorf("after a, the stepper steps through %d unfired and %d fired fault points: want %d and %d", un, f, nUnfired, nFired)
	}
	for _, l := range m.eventLines(20) {
		if strings.Contains(l, "fired=0") {
			return
		}
	}
	t.Error("after a, the listing shows no unfired fault point")
}

// The page's header says the fault options in one item, the full list on
// hover. Regression: one item per fault point, twenty for a real store.
func TestHTMLHeaderFaultsInOneItem(t *testing.T) {
	path := faultyTrace(t)
	out := runCLI(t, "html", path)
	b, err := os.ReadFile(strings.TrimSpace(out))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	meta := regexp.MustCompile(`(?s)<div class="meta">(.*?)<span id="stats">`).FindStringSubmatch(page)
	if meta == nil {
		t.Fatal("no header line")
	}
	if n := strings.Count(meta[1], "fault."); n != 0 {
		t.Errorf("the header lists %d fault options one by one:\n%s", n, meta[1])
	}
	item := regexp.MustCompile(`<span title="([^"]*)">faults: 4 points, each with probability 0.1</span>`).FindStringSubmatch(meta[1])
	if item == nil || strings.Count(item[1], "=0.1") != 4 {
		t.Errorf("no one item for the four fault points:\n%s", meta[1])
	}
	if !strings.Contains(page, `"unfired":`) {
		t.Error("the page does not count the unfired fault points it hides")
	}
}
