// Package cli is the dstreplay command: a table of subcommands over the
// trace and replay packages. cmd/dstreplay/main.go only calls Main.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"time"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1 // the command ran, and found the trace damaged or the traces different
	ExitUsage   = 2 // bad arguments, or a file that cannot be read as a trace
)

// command is one subcommand.
type command struct {
	name  string
	args  string // the arguments' synopsis
	short string
	long  string
	run   func(env *env, args []string) int
}

// commands is the table that drives dispatch and help.
var commands []*command

func init() {
	commands = []*command{
		{name: "show", args: "[flags] trace...", short: "print the events of a trace, one per line", run: runShow,
			long: "Show prints a trace's header, its events (filtered by the flags) and its outcome. Events are\nnumbered from 1, as every command numbers them (the stepper, summary, html's #event=N,\nexport); a switch that preempted a goroutine that could have gone on reads \"preempt\"\n(-op preempt lists them), and fault points that did not fire are hidden unless -faults.\nA trace cut short is shown up to its last complete frame, with what is missing."},
		{name: "summary", args: "trace...", short: "the outcome, counts, switches and preemptions, the longest waits", run: runSummary,
			long: "Summary prints how the run ended, how many events each goroutine and each operation has,\nthe context switches and how many of them were preemptions (the previous goroutine could\nhave continued), each preemption (its step and event, the goroutines, where the preempted\none was), the longest waits, and the failure's report."},
		{name: "diff", args: "trace-a trace-b", short: "the first point where two traces differ, side by side", run: runDiff,
			long: "Diff compares two traces event by event (source locations aside) and shows the first\ndifference with the events before it, side by side, reading both a frame at a time. It exits\nwith 1 when they differ (events or outcomes), or when either is damaged or cut short: what\ncame after the damage is unknown, and diff says which trace and after which event."},
		{name: "export", args: "[flags] trace", short: "convert a trace for Perfetto (Chrome trace-event JSON)", run: runExport,
			long: "Export writes the trace in the Chrome trace-event format, which ui.perfetto.dev and\nchrome://tracing open: a track per goroutine, a slice while it runs, an instant for each of\nits operations, and arrows from a goroutine to the one it wakes (channel handoffs, unlocks).\nand a slice while it is blocked. Time is virtual time, each event placed a nanosecond\nafter the one before it when they share an instant; each event's number, step and exact\nvirtual time are in its details."},
		{name: "html", args: "[-o out.html] trace...", short: "write the trace as one self-contained HTML page: swimlanes per goroutine", run: runHTML,
			long: "HTML writes the trace as a single HTML file that opens offline in a browser: a lane per\ngoroutine over steps or virtual time, with bars while it runs, a mark for each of its\noperations, shading while it is blocked and lines from a goroutine to the one it wakes.\nThe wheel and +/- zoom, a drag and the arrow keys pan; a click shows an event's line, its\nsource location and the source around it. The failure is in red and selected on load,\npreemptions in purple (a legend says what each colour means); fault points that did not\nfire are hidden until u shows them. #event=N in the URL selects event N, numbered from 1\nas show numbers it. The file goes next to the trace, with the extension .html, unless -o\nsays where; its path is printed. A trace cut short makes a page of its complete events\nthat says it is cut."},
		{name: "exec", args: "[flags] trace", short: "re-run the recorded test from the trace and confirm its outcome", run: runExec,
			long: "Exec runs the test that recorded the trace, in its package, with go test -dst.trace: the\nscheduler replays the trace's decisions and compares every event. It exits with 0 when the\nre-run ends as recorded, and with 1 when the outcome differs or the run diverged."},
		{name: "debug", args: "[flags] trace [-- dlv flags]", short: "start delve on the recorded test, stopped at a step of the replay", run: runDebug, long: debugHelp},
		{name: "hunt", args: "[flags] [packages]", short: "hunt for failing schedules with many worker processes", run: runHunt,
			long: huntHelp},
		{name: "test", args: "[-rewrite patterns] [packages] [go test flags]", short: "go test with Go's own concurrency rewritten onto the scheduler", run: runTest,
			long: testHelp},
		{name: "help", args: "[command]", short: "describe the commands", run: runHelp},
	}
}

// each names the commands that read one trace and write about it, which
// take several (a glob that matches more than one saved failure) one after
// the other.
var each = map[string]bool{"show": true, "summary": true, "html": true}

// valueFlags are the flags of show, summary and html that take a value.
var valueFlags = map[string]bool{"g": true, "from": true, "to": true, "op": true, "grep": true, "o": true}

// flagName is the name of flag argument a ("-g", "--g=1"), and whether the
// argument holds its value; "" when a is not a flag.
func flagName(a string) (name string, hasValue bool) {
	if len(a) < 2 || a[0] != '-' || a == "--" {
		return "", false
	}
	name = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
	name, _, hasValue = strings.Cut(name, "=")
	return name, hasValue
}

// runEach runs c once per trace file in args, with the other arguments
// (its flags), under a line naming the file when there are several, and
// returns the worst exit code.
func runEach(e *env, c *command, args []string) int {
	var files, rest []string
	positional := false // after "--"
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, hasValue := flagName(a)
		switch {
		case !positional && a == "--":
			positional = true
			continue
		case !positional && name != "":
			rest = append(rest, a)
			if valueFlags[name] && !hasValue && i+1 < len(args) {
				i++ // its value, whatever it looks like
				rest = append(rest, args[i])
			}
			continue
		}
		if _, err := os.Stat(a); err == nil && strings.HasSuffix(a, ".trace") {
			files = append(files, a)
			continue
		}
		rest = append(rest, a)
	}
	if len(files) < 2 {
		return c.run(e, args)
	}
	if c.name == "html" && slices.ContainsFunc(rest, func(a string) bool { n, _ := flagName(a); return n == "o" }) {
		fmt.Fprintf(e.stderr, "dstreplay html: -o names one page, and %d traces are given\n", len(files))
		return ExitUsage
	}
	code := ExitOK
	for i, f := range files {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		fmt.Fprintf(e.stdout, "==> %s <==\n", f)
		code = max(code, c.run(e, append(slices.Clone(rest), f)))
	}
	return code
}

// env is what a command writes to.
type env struct {
	stdout, stderr io.Writer
}

// Main runs dstreplay with args (without the program name) and returns the
// exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		usage(e.stderr)
		return ExitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(e.stdout)
		return ExitOK
	}
	if c := lookup(args[0]); c != nil {
		if each[c.name] {
			return runEach(e, c, args[1:])
		}
		return c.run(e, args[1:])
	}
	if strings.HasPrefix(args[0], "-") || !looksLikeFile(args[0]) {
		fmt.Fprintf(e.stderr, "dstreplay: unknown command %q\n\n", args[0])
		usage(e.stderr)
		return ExitUsage
	}
	// dstreplay file.trace: the stepper for a person at a terminal, the
	// listing (as show prints it) otherwise.
	if _, err := os.Stat(args[0]); err != nil {
		fmt.Fprintf(e.stderr, "dstreplay: %v\n", err)
		return ExitUsage
	}
	if interactive(e.stdout) && !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-") }) {
		path := args[0]
		if len(args) > 1 { // a glob that matched several saved failures
			path = newest(args)
			fmt.Fprintf(e.stderr, "dstreplay: %d traces given; opening the newest, %s\n", len(args), path)
		}
		return runStepper(e, path)
	}
	return runEach(e, lookup("show"), args)
}

// newest is the most recently written of the files paths.
func newest(paths []string) string {
	best, at := paths[0], time.Time{}
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.ModTime().After(at) {
			best, at = p, st.ModTime()
		}
	}
	return best
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func looksLikeFile(s string) bool {
	_, err := os.Stat(s)
	return err == nil || strings.ContainsAny(s, "./")
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "dstreplay reads the traces that sched saves for failing tests.\n\n")
	fmt.Fprintf(w, "Usage:\n\n\tdstreplay file.trace       step through the trace (in a terminal; piped, as show)\n\tdstreplay command [args]\n\nCommands:\n\n")
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-8s %s\n", c.name, c.short)
	}
	fmt.Fprintf(w, "\nRun \"dstreplay help command\" or \"dstreplay command --help\" for details.\n")
}

func runHelp(e *env, args []string) int {
	if wantsHelp(args) {
		c, code := lookup("help"), ExitOK
		c.parse(c.flags(e), args, 0, &code)
		return code
	}
	if len(args) == 0 {
		usage(e.stdout)
		return ExitOK
	}
	c := lookup(args[0])
	if c == nil {
		fmt.Fprintf(e.stderr, "dstreplay help: unknown command %q\n", args[0])
		return ExitUsage
	}
	fs := c.flags(e)
	fs.SetOutput(e.stdout)
	fs.Usage()
	return ExitOK
}

// flagSet is a command's flags, with where its help goes when asked for.
type flagSet struct {
	*flag.FlagSet
	stdout io.Writer
}

func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "-h", "-help", "--help":
			return true
		case "--":
			return false
		}
	}
	return false
}

// flags returns the command's flag set; its Usage prints the command's help.
func (c *command) flags(e *env) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet(c.name, flag.ContinueOnError), stdout: e.stdout}
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: dstreplay %s %s\n\n%s\n", c.name, c.args, c.short)
		if c.long != "" {
			fmt.Fprintf(w, "\n%s\n", c.long)
		}
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintf(w, "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

// anyArgs tells parse to take any number of positional arguments, between
// the flags too (as go test takes packages).
const anyArgs = -1

// parse parses args for c, and checks that want positional arguments
// remain. It returns false (after saying why) when the command must stop,
// with the exit code in *code.
func (c *command) parse(fs *flagSet, args []string, want int, code *int) bool {
	if wantsHelp(args) {
		// Asked for: on stdout, and a success.
		out := fs.Output()
		fs.SetOutput(fs.stdout)
		fs.Usage()
		fs.SetOutput(out)
		*code = ExitOK
		return false
	}
	if err := parseFlags(fs.FlagSet, args, want == anyArgs); err != nil {
		*code = ExitUsage
		if errors.Is(err, flag.ErrHelp) {
			*code = ExitOK
		}
		return false
	}
	if want != anyArgs && fs.NArg() != want {
		fmt.Fprintf(fs.Output(), "dstreplay %s: want %d argument(s), got %d\n", c.name, want, fs.NArg())
		fs.Usage()
		*code = ExitUsage
		return false
	}
	return true
}

// parseFlags parses args into fs. With interleaved, flags may follow
// positional arguments, which fs.Args then returns all together.
func parseFlags(fs *flag.FlagSet, args []string, interleaved bool) error {
	if !interleaved {
		return fs.Parse(args)
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			pos = append(pos, rest...) // everything after -- is positional
			break
		}
		for len(rest) > 0 && (len(rest[0]) < 2 || rest[0][0] != '-') { // as package flag tells them apart
			pos, rest = append(pos, rest[0]), rest[1:]
		}
		if len(rest) == 0 {
			break
		}
		args = rest
	}
	return fs.Parse(append([]string{"--"}, pos...))
}

// sortedKeys returns m's keys in order.
func sortedKeys[K string | int32](m map[K]int) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}
