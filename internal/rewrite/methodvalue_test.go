package rewrite_test

import (
	"go/ast"
	"go/parser"
	"go/types"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/rewrite"
)

// methodValues uses the methods of timers and tickers as values and as
// method expressions in every place Go allows them, with the receiver
// changed after the method value is taken. Run's result is deterministic.
const methodValues = `package mv

import (
	"fmt"
	"strings"
	clock "time"
)

type holder struct{ stop func() bool }

type embeds struct{ *clock.Timer }

type ticking struct{ clock.Ticker }

func stopper(t *clock.Timer) func() bool { return t.Stop }

func call(f func() bool) bool { return f() }

func later[T any](t *clock.Timer, v T) (func() bool, T) { return t.Stop, v }

func fired(t *clock.Timer) bool {
	select {
	case <-t.C:
		return true
	case <-clock.After(50 * clock.Millisecond):
		return false
	}
}

// deferred stops t with a deferred method value.
func deferred(t *clock.Timer) {
	stop := t.Stop
	defer stop()
}

var (
	pkgTimer = clock.NewTimer(clock.Hour)
	pkgLevel = pkgTimer.Stop
)

func Run() string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }

	// The receiver is evaluated where the method value is.
	t := clock.NewTimer(10 * clock.Millisecond)
	first := t
	stop := t.Stop
	t = clock.NewTimer(20 * clock.Millisecond)
	add("stop=%v first=%v second=%v", stop(), fired(first), fired(t))

	a, b, c, d := clock.NewTimer(10*clock.Millisecond), clock.NewTimer(10*clock.Millisecond), clock.NewTimer(10*clock.Millisecond), clock.NewTimer(10*clock.Millisecond)
	h := holder{a.Stop}
	var h2 holder
	h2.stop = b.Stop
	s, n := later(d, 7)
	add("literal=%v field=%v returned=%v argument=%v generic=%v,%d", h.stop(), h2.stop(), stopper(c)(), call(c.Stop), s(), n)
	add("fired=%v,%v,%v,%v", fired(a), fired(b), fired(c), fired(d))

	e := clock.NewTimer(10 * clock.Millisecond)
	deferred(e)
	add("deferred=%v", fired(e))

	// Reset as a value, and through an embedded field changed afterwards.
	r := clock.NewTimer(clock.Hour)
	reset := r.Reset
	add("reset=%v fired=%v", reset(5*clock.Millisecond), fired(r))
	em := embeds{clock.NewTimer(10 * clock.Millisecond)}
	orig := em.Timer
	emStop := em.Stop
	em.Timer = clock.NewTimer(clock.Hour)
	add("embedded=%v fired=%v", emStop(), fired(orig))

	// Method expressions.
	x := clock.NewTimer(10 * clock.Millisecond)
	resetX := (*clock.Timer).Reset
	add("expr=%v,%v", (*clock.Timer).Stop(x), resetX(x, 5*clock.Millisecond))
	add("expr fired=%v stop=%v", fired(x), embeds.Stop(embeds{x}))
	y := clock.NewTimer(10 * clock.Millisecond)
	add("expr embedded=%v fired=%v", (*embeds).Stop(&embeds{y}), fired(y))

	// A ticker, and one held by value in a struct.
	tk := clock.NewTicker(10 * clock.Millisecond)
	tkReset, tkStop := tk.Reset, tk.Stop
	<-tk.C
	tkReset(20 * clock.Millisecond)
	<-tk.C
	tkStop()
	select {
	case <-tk.C:
		add("ticked after Stop")
	case <-clock.After(50 * clock.Millisecond):
		add("ticker stopped")
	}
	tv := &ticking{}
	tvStop := tv.Stop
	tvStop()
	(*ticking).Stop(tv)

	af := clock.AfterFunc(clock.Hour, func() { add("AfterFunc ran") })
	afStop := af.Stop
	pkgTimer.Reset(clock.Hour)
	add("AfterFunc stop=%v,%v package=%v", afStop(), afStop(), pkgLevel())
	return strings.Join(out, "; ")
}
`

// TestMethodValuesRewritten: the method values and method expressions of
// timers and tickers, and of reflect.Value's methods on channels, are
// rewritten into function literals that type-check, whatever name the file
// gives package time (or a local variable takes), and save the receiver
// where the method value is.
func TestMethodValuesRewritten(t *testing.T) {
	src := strings.Replace(methodValues, "package mv", "package p", 1) + `
func shadowed(time int, t *clock.Timer) (func(clock.Duration) bool, int) { return t.Reset, time }

func reflected(v reflect.Value) (func(reflect.Value), func(reflect.Value) (reflect.Value, bool)) {
	reflect.Value.Close(v)
	return v.Send, reflect.Value.Recv
}
`
	src = strings.Replace(src, `"strings"`, `"reflect"; "strings"`, 1)
	out, errs := rewriteWith(t, sourceFset, sourceImporter, "/src/p.go", src, rewrite.Config{})
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	f, err := parser.ParseFile(sourceFset, "/src/p.go", out, 0)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := (&types.Config{Importer: sourceImporter}).Check("p", sourceFset, []*ast.File{f}, nil); err != nil {
		t.Fatalf("the rewritten file does not type-check: %v\n%s", err, out)
	}
	// No method of time's timers or of reflect.Value on a channel is
	// left in the rewritten file but the shims' calls.
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok && types.ExprString(s.X) != "_dstn" {
			switch s.Sel.Name {
			case "Stop", "Reset":
				t.Errorf("%s: %s.%s is left", sourceFset.Position(s.Pos()), types.ExprString(s.X), s.Sel.Name)
			case "Send", "Recv", "Close":
				if c, ok := s.X.(*ast.CallExpr); !ok || !strings.HasSuffix(types.ExprString(c.Fun), ".Reflected") {
					t.Errorf("%s: %s.%s is left", sourceFset.Position(s.Pos()), types.ExprString(s.X), s.Sel.Name)
				}
			}
		}
		return true
	})
	for _, want := range []string{
		"_dstn.TimerStop(", "_dstn.TimerReset(", "_dstn.TickerStop(", "_dstn.TickerReset(",
		`_dst_time "time"`, `_dst_reflect "reflect"`, "func(_dst", "_dst_time.Duration",
		`.Reflected(`, `"Send", "p.go:`, `"Recv", "p.go:`, `"Close", "p.go:`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the rewritten file has no %q:\n%s", want, out)
		}
	}
}

// TestMethodValuesRun: rewritten, the method values and method expressions
// of methodValues observe outside a run what Go's do, and under the
// scheduler, on the virtual clock, the same for every schedule, without a
// failure (the standard methods run on the run's timers would panic: they
// are not initialized by package time).
func TestMethodValuesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	harness := `package mv

import (
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/dstgo/dst/sched/schedtest"
)

func TestNative(t *testing.T) {
	b, _ := json.Marshal(map[string]string{"name": "native", "got": Run()})
	fmt.Printf("NATIVE %s\n", b)
}

func TestScheduled(t *testing.T) {
	outcomes := map[string]bool{}
	failure := ""
	for seed := uint64(1); seed <= 20 && failure == ""; seed++ {
		var got string
		res, err := schedtest.Run(schedtest.Options{Seed: seed}, func(*schedtest.T) { got = Run() })
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure != nil {
			failure = res.Failure.Error()
			break
		}
		outcomes[got] = true
	}
	var list []string
	for o := range outcomes {
		list = append(list, o)
	}
	sort.Strings(list)
	b, _ := json.Marshal(map[string]any{"name": "scheduled", "outcomes": list, "failure": failure})
	fmt.Printf("SCHED %s\n", b)
}
`
	env := append(os.Environ(), "GOFLAGS=-mod=mod")
	dir := tempModule(t, env, map[string]string{"mv.go": methodValues, "mv_test.go": harness})
	plain := lines(t, dir, env, "NATIVE", "test", "-v", "-count=1", "-run=^TestNative$", ".")
	if len(plain) != 1 {
		t.Fatalf("%d lines from the plain build", len(plain))
	}
	want := plain[0]["got"].(string)
	for _, s := range []string{"stop=true first=false second=true", "literal=true field=true", "deferred=false", "reset=true fired=true",
		"embedded=true fired=false", "ticker stopped", "AfterFunc stop=true,false package=true"} {
		if !strings.Contains(want, s) {
			t.Fatalf("Go's own run gives %q, without %q", want, s)
		}
	}
	overlay, n, err := rewrite.Overlay(rewrite.Options{Dir: dir, Patterns: []string{"."}, Env: env, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 { // mv.go, and the harness's range over a map
		t.Errorf("%d files rewritten, want 2", n)
	}
	native := lines(t, dir, env, "NATIVE", "test", "-v", "-count=1", "-overlay="+overlay, "-run=^TestNative$", ".")
	if len(native) != 1 || native[0]["got"] != want {
		t.Errorf("rewritten, outside a run: %v\nGo: %q", native, want)
	}
	sched := lines(t, dir, env, "SCHED", "test", "-v", "-count=1", "-overlay="+overlay, "-run=^TestScheduled$", ".")
	if len(sched) != 1 {
		t.Fatalf("%d lines from the scheduled run", len(sched))
	}
	if f := sched[0]["failure"].(string); f != "" {
		t.Fatalf("failed under the scheduler:\n%s", f)
	}
	if got := strs(sched[0]["outcomes"]); !slices.Equal(got, []string{want}) {
		t.Errorf("under the scheduler: %q\nGo: %q", got, want)
	}
}
