package schedtest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/atomicfile"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/schedule"
	"github.com/dstgo/dst/trace"
)

// Saved failures: a failing test writes its trace under
// testdata/dst/<TestName>/, and the next go test replays the traces saved
// for the test before exploring.

// defaultDir is where failures are saved, relative to the package.
const defaultDir = "testdata/dst"

// saveDir is where this process saves failures: -dst.dir, else $DST_DIR,
// else testdata/dst; "off" disables saving and replaying saved failures.
func saveDir() string {
	if flags.dir != "" {
		return flags.dir
	}
	if d := os.Getenv("DST_DIR"); d != "" {
		return d
	}
	if d := versionedDependencyDir(); d != "" {
		return d
	}
	return defaultDir
}

// versionedDependencyDir is where failures of a package of a module at a
// version are saved when dstreplay test ran it from another module (dstreplay
// test -rewrite=golang.org/x/sync/... golang.org/x/sync/errgroup): under
// testdata/dst/<import path> of the directory dstreplay test ran in. Its own
// directory is the module cache's, which is read-only, or the rewrite cache's
// copy of it, whose files are checked on reuse (a trace saved there made
// the next run rebuild it as modified). It is "" for any other package.
func versionedDependencyDir() string {
	pkg := dependencyUnderTest()
	if pkg == "" {
		return ""
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for _, elem := range strings.Split(filepath.ToSlash(wd), "/") {
		if _, v, ok := strings.Cut(elem, "@"); ok && strings.HasPrefix(v, "v") {
			return testDir(filepath.Join(os.Getenv("DST_TEST_DIR"), defaultDir), pkg)
		}
	}
	return ""
}

// saveRoot is the directory beneath which the directories of saveDir's
// failures are made, replayed and pruned, and which holds no link on the
// way down to them (confined): the directory -dst.dir or $DST_DIR names,
// which the user chose as it is; else the testdata directory of the
// package (or of the directory dstreplay test ran in, for a versioned
// dependency), which may be a link (fixtures shared in a monorepo) while
// testdata/dst and what is beneath it may not.
func saveRoot() string {
	switch {
	case flags.dir != "":
		return flags.dir
	case os.Getenv("DST_DIR") != "":
		return os.Getenv("DST_DIR")
	case versionedDependencyDir() != "":
		return filepath.Join(os.Getenv("DST_TEST_DIR"), filepath.Dir(defaultDir))
	}
	return filepath.Dir(defaultDir)
}

// confined checks that the directory of the test name's saved failures is
// reached from saveRoot through directories only, no symbolic link: a link
// planted in testdata/dst (a checkout holds what a pull request put there)
// would make go test write traces elsewhere, replay what is there, and
// with -dst.prune delete it.
func confined(name string) error {
	dir := saveDir()
	if dir == "off" {
		return nil
	}
	root := saveRoot()
	dirs := []string{testDir(dir, name)}
	if old := legacyTestDir(dir, name); old != "" {
		dirs = append(dirs, old)
	}
	for _, d := range dirs {
		rel, err := filepath.Rel(root, d)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue // not beneath it (cannot happen: testDir stays in dir)
		}
		p := root
		for _, e := range strings.Split(rel, string(filepath.Separator)) {
			p = filepath.Join(p, e)
			fi, err := os.Lstat(p)
			if err != nil {
				// Nothing beneath it yet, or a name no file can have (an
				// older version's, too long): nothing to follow.
				break
			}
			if fi.Mode()&fs.ModeSymlink != 0 {
				return fmt.Errorf("sched: %s is a symbolic link: saved failures are written, replayed and deleted only in "+
					"directories beneath %s, never through a link, which could have them written, read or deleted "+
					"elsewhere; remove it, or name the directory to save in with -dst.dir", fromRoot(p), fromRoot(root))
			}
			if !fi.IsDir() {
				return fmt.Errorf("sched: %s is not a directory: failures cannot be saved beneath it", fromRoot(p))
			}
		}
	}
	return nil
}

// testDir is the directory of a test's saved failures under dir: subtests
// nest, one directory per element of the test's name, each element turned
// into a safe file name by pathElement. Test names come from the test's
// data (the names of table-driven subtests), so the directory is inside
// dir whatever the name holds: "..", a separator, control characters.
func testDir(dir, name string) string {
	parts := strings.Split(name, "/")
	elems := make([]string, 0, 1+len(parts))
	elems = append(elems, dir)
	for _, p := range parts {
		elems = append(elems, pathElement(p))
	}
	return filepath.Join(elems...)
}

// maxElement bounds the length of a path element pathElement makes: file
// systems refuse names longer than 255 bytes.
const maxElement = 200

// pathElement is s as one file name that is safe everywhere and names
// nothing else: the bytes outside [A-Za-z0-9_.=+-] percent-escaped (%2F for
// a '/', %25 for a '%'), and so are a leading dot (".", ".." and hidden
// names), a trailing dot (which Windows drops) and the first letter of the
// device names Windows reserves (CON, NUL, COM1, ...); the empty string is
// "%". Different elements give different names: the escapes decode back to
// s, and a name longer than maxElement is cut, with the hash of the whole
// after a '~', which no escaped name holds.
func pathElement(s string) string {
	if s == "" {
		return "%"
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if safeByte(c) && !(c == '.' && (i == 0 || i == len(s)-1)) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	e := b.String()
	if stem, _, _ := strings.Cut(e, "."); reservedName(stem) {
		e = fmt.Sprintf("%%%02X", e[0]) + e[1:]
	}
	if len(e) > maxElement {
		sum := sha256.Sum256([]byte(s))
		cut := maxElement - 17
		if i := strings.LastIndexByte(e[:cut], '%'); i >= cut-2 {
			cut = i // not inside an escape
		}
		e = e[:cut] + "~" + hex.EncodeToString(sum[:8])
	}
	return e
}

// safeByte reports whether c stands for itself in a path element.
func safeByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("_.=+-", c) >= 0
}

// reservedName reports whether the stem of a file name (before its first
// dot) is a device name Windows reserves in every directory.
func reservedName(stem string) bool {
	switch u := strings.ToUpper(stem); u {
	case "CON", "PRN", "AUX", "NUL":
		return true
	default:
		return len(u) == 4 && (strings.HasPrefix(u, "COM") || strings.HasPrefix(u, "LPT")) && '0' <= u[3] && u[3] <= '9'
	}
}

// legacyTestDir is where versions before pathElement saved the failures of
// the test name (every unsafe character replaced by '_'), when that differs
// from testDir and is inside dir; else "". Its traces still replay, once
// their header says they are the test's: the old names were not unique.
func legacyTestDir(dir, name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		p = legacyUnsafe.ReplaceAllString(p, "_")
		if p == "" || p == "." || p == ".." {
			return "" // not inside dir, or not the same depth
		}
		parts[i] = p
	}
	old := filepath.Join(append([]string{dir}, parts...)...)
	if old == testDir(dir, name) {
		return ""
	}
	return old
}

var legacyUnsafe = regexp.MustCompile(`[^A-Za-z0-9_.=+-]`)

// staleTemp is how old a temporary file of a write under dir must be for
// a save, or the next run, to remove it as left by a killed process (see
// atomicfile.RemoveStale): another test process may be saving there now.
// -dst.prune removes those older than pruneTemp, which no write under way
// is: a write modifies its file as it goes, and takes well under a minute.
const (
	staleTemp = 10 * time.Minute
	pruneTemp = time.Minute
)

// removeStaleTemps removes the temporary files that killed saves left in
// the directory of the test name's saved failures, older than age, and
// returns how many it removed.
func removeStaleTemps(name string, age time.Duration) (int, string, error) {
	dir := saveDir()
	if dir == "off" {
		return 0, "", nil
	}
	td := testDir(dir, name)
	removed, err := atomicfile.RemoveStale(td, age, ".trace")
	return len(removed), td, err
}

// header describes schedule s of the test name for a trace.
func (s plan) header(o Options, name string, body func(*T), rec *entropy.Recording, detail bool) *trace.Header {
	h := &trace.Header{
		Package:   bodyPackage(body),
		Test:      name,
		GoVersion: runtime.Version(),
		GOOS:      runtime.GOOS,
		GOARCH:    runtime.GOARCH,
		MaxSteps:  o.MaxSteps,
		Detail:    detail,
	}
	s.Schedule.Header(h, rec)
	if bi, ok := debug.ReadBuildInfo(); ok {
		h.Module = bi.Main.Path + "@" + bi.Main.Version
	}
	for name, p := range o.Faults {
		h.Options = append(h.Options, fmt.Sprintf("fault.%s=%v", name, p))
	}
	for name, d := range o.FaultBounds {
		h.Options = append(h.Options, fmt.Sprintf("faultbound.%s=%v", name, d))
	}
	if v := os.Getenv("DST_REWRITTEN"); v != "" {
		// Code that dstreplay test rewrote: dstreplay exec and debug
		// rewrite it again, with the same flags, to re-run it.
		h.Options = append(h.Options, "rewritten=1")
		for _, f := range rewriteFlags(v) {
			switch name, value, _ := strings.Cut(f, "="); name {
			case "-wrap":
				h.Options = append(h.Options, "rewritten.wrap=1")
			case "-nativehttp":
				h.Options = append(h.Options, "rewritten.nativehttp=1")
			case "-rewrite":
				h.Options = append(h.Options, "rewritten.rewrite="+value)
			}
		}
	}
	if engine.RaceEnabled {
		// Under -race: a data race is reported only by the detector.
		h.Options = append(h.Options, "race=1")
	}
	if o.FaultProbability != 0 {
		h.Options = append(h.Options, fmt.Sprintf("faultprobability=%v", o.FaultProbability))
	}
	if o.Timeout > 0 {
		// A run whose clock reaches it fails: a replay under another
		// timeout (a wrapped test's is go test's -timeout) would not.
		h.Options = append(h.Options, "timeout="+o.Timeout.String())
	}
	if !o.Start.IsZero() {
		h.Options = append(h.Options, "start="+o.Start.Format(time.RFC3339Nano))
		if o.startMoved {
			// After a real reading (engine.ClockStart): a replay moves it
			// past its own process's readings the same way.
			h.Options = append(h.Options, "start.moved=1")
		}
		if loc := o.Start.Location(); loc != time.UTC {
			// RFC 3339 keeps the offset, not the zone's name, which
			// vtime.Now().String() shows.
			h.Options = append(h.Options, "start.zone="+loc.String())
		}
	}
	if f := o.ClockFaults; f != (ClockFaults{}) {
		h.Options = append(h.Options, fmt.Sprintf("clock.late=%v,%v", f.LateProbability, f.MaxLate),
			fmt.Sprintf("clock.jump=%v,%v", f.JumpProbability, f.MaxJump))
		if f.BusyProbability > 0 {
			h.Options = append(h.Options, fmt.Sprintf("clock.busy=%v", f.BusyProbability))
		}
	}
	slices.Sort(h.Options)
	return h
}

// bodyPackage guesses the import path of the package that wrote body.
func bodyPackage(body func(*T)) string {
	f := runtime.FuncForPC(reflect.ValueOf(body).Pointer())
	if f == nil {
		return ""
	}
	name := f.Name() // "example.com/pkg_test.TestX.func1"
	slash := strings.LastIndexByte(name, '/')
	if dot := strings.IndexByte(name[slash+1:], '.'); dot >= 0 {
		name = name[:slash+1+dot]
	}
	if name == nativetestPath {
		// A test that dstreplay test -wrap runs.
		if pkg := testedPackage(); pkg != "" {
			return pkg
		}
	}
	return name
}

// testedPackage is the import path of the package whose test binary this
// is (its main package is "<package>.test"), or "".
func testedPackage() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if pkg, ok := strings.CutSuffix(bi.Path, ".test"); ok {
			return pkg
		}
	}
	return ""
}

// nativetestPath is the package whose Wrap is the body of the tests that
// dstreplay test -wrap runs.
const nativetestPath = "github.com/dstgo/dst/sched/native/nativetest"

// rewriteFlags are the flags of dstreplay test that rewrote the running
// code, from the value dstreplay test gives DST_REWRITTEN: "1", or the
// flags ("-wrap -rewrite=golang.org/x/sync/...").
func rewriteFlags(v string) []string {
	if v == "1" {
		return nil
	}
	return strings.Fields(v)
}

// fromHeader is the options and the schedule a trace records.
func fromHeader(h *trace.Header, o Options) (Options, plan, error) {
	sc, err := schedule.FromHeader(h)
	if err != nil {
		return o, plan{}, fmt.Errorf("sched: %w", err)
	}
	s := plan{Schedule: sc}
	o.MaxSteps, o.Faults, o.FaultProbability, o.ClockFaults, o.Start = h.MaxSteps, nil, 0, ClockFaults{}, time.Time{}
	o.FaultBounds, o.faultFlag = nil, ""
	o.Timeout = 0 // none unless the trace says
	o.startMoved = false
	zone, moved := "", false
	for _, opt := range h.Options {
		// The value is after the last "=": a fault's name may hold one.
		k, v := opt, ""
		if i := strings.LastIndexByte(opt, '='); i >= 0 {
			k, v = opt[:i], opt[i+1:]
		}
		switch {
		case strings.HasPrefix(k, "fault."):
			if o.Faults == nil {
				o.Faults = map[string]float64{}
			}
			o.Faults[strings.TrimPrefix(k, "fault.")], err = strconv.ParseFloat(v, 64)
		case strings.HasPrefix(k, "faultbound."):
			if o.FaultBounds == nil {
				o.FaultBounds = map[string]time.Duration{}
			}
			var d time.Duration
			if d, err = time.ParseDuration(v); err == nil && d <= 0 {
				err = fmt.Errorf("not positive")
			}
			o.FaultBounds[strings.TrimPrefix(k, "faultbound.")] = d
		case k == "faultprobability":
			o.FaultProbability, err = strconv.ParseFloat(v, 64)
		case k == "timeout":
			if o.Timeout, err = time.ParseDuration(v); err == nil && o.Timeout <= 0 {
				err = fmt.Errorf("not positive")
			}
		case k == "start":
			o.Start, err = time.Parse(time.RFC3339Nano, v)
		case k == "start.zone":
			zone = v
		case k == "start.moved":
			moved = v == "1"
		case k == "clock.late":
			o.ClockFaults.LateProbability, o.ClockFaults.MaxLate, err = probAndBound(v)
		case k == "clock.busy":
			o.ClockFaults.BusyProbability, err = strconv.ParseFloat(v, 64)
		case k == "clock.jump":
			o.ClockFaults.JumpProbability, o.ClockFaults.MaxJump, err = probAndBound(v)
		}
		if err != nil {
			return o, s, fmt.Errorf("sched: the trace's option %q: %w", opt, err)
		}
	}
	if zone != "" && !o.Start.IsZero() {
		o.Start = inZone(o.Start, zone)
	}
	if o.Start.IsZero() || moved {
		// A default start, or one moved past the recording process's real
		// readings, moves past this process's; a start the recording was
		// given is kept.
		o = o.startAfterReadings()
	}
	return o, s, nil
}

// inZone is t in the time zone named name, which has t's offset at t: the
// zone of that name when this machine knows one that agrees, else a fixed
// zone of that name.
func inZone(t time.Time, name string) time.Time {
	_, offset := t.Zone()
	if loc, err := time.LoadLocation(name); err == nil {
		in := t.In(loc)
		if _, o := in.Zone(); o == offset {
			return in
		}
	}
	return t.In(time.FixedZone(name, offset))
}

// probAndBound parses "p,duration" as written by header.
func probAndBound(v string) (float64, time.Duration, error) {
	ps, ds, _ := strings.Cut(v, ",")
	p, err := strconv.ParseFloat(ps, 64)
	if err != nil {
		return 0, 0, err
	}
	d, err := time.ParseDuration(ds)
	return p, d, err
}

// outcomeOf summarizes res for a trace's footer.
func outcomeOf(res *Result) *trace.Outcome {
	o := &trace.Outcome{Kind: "pass", Steps: int64(res.Steps), Switches: int64(res.Switches), Goroutines: int64(res.Goroutines)}
	if f := res.Failure; f != nil {
		o.Kind, o.Message, o.Report = string(f.Kind), f.Message, f.Error()
	}
	return o
}

// writeTrace saves res's trace as file, atomically and durably.
func writeTrace(file string, h *trace.Header, res *Result) error {
	return atomicfile.Write(file, true, func(w io.Writer) error {
		return trace.Write(w, h, res.Trace, outcomeOf(res))
	})
}

// Replay re-executes body from the trace file at path: the decisions come
// from the trace's recording and its options, and every event of the new
// run is compared with the recorded one. It returns the new run's result
// and, when the runs differ, a *trace.Divergence naming the first
// difference.
func Replay(path string, body func(*T)) (*Result, error) {
	return replayFile(path, "schedtest.Replay", nil, body, 0)
}

// replayFile replays the trace file at path. With breakAt > 0 the run calls
// engine.Breakpoint at that step, and runs without the watchdog: a debugger
// holds the process stopped for as long as the user looks.
func replayFile(path, name string, tb tbase, body func(*T), breakAt int) (*Result, error) {
	r, err := trace.OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if r.Truncated != nil {
		return nil, fmt.Errorf("sched: %s: %w", path, r.Truncated)
	}
	o, err := (Options{}).withDefaults()
	if err != nil {
		return nil, err
	}
	o, s, err := fromHeader(&r.Header, o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	want, err := r.ReadAll()
	if err != nil {
		return nil, err
	}
	o.Record = true
	if breakAt > 0 {
		s.breakAt, o.Watchdog = breakAt, -1
	}
	// With source locations whatever the recording had: the comparison
	// leaves them aside, and a divergence shows where the new run was.
	out, rec, buf := s.execute(o, name, tb, body, true)
	res := s.result(out, rec, buf)
	res.opts, res.name, res.body, res.detail = o, name, body, true
	got, err := buf.Events()
	if err != nil {
		return res, err
	}
	if d := trace.Compare(want, got); d != nil {
		return res, d
	}
	if r.Outcome != nil {
		if d := trace.CompareEnds(int64(len(got)), r.Outcome.End(), outcomeOf(res).End()); d != nil {
			return res, d
		}
	}
	return res, nil
}

// savedFailures lists the traces saved for the test name: the regular
// files named *.trace in its directory (a hidden one is an atomic write's
// temporary, maybe half written), then those of its directory of older
// versions (legacyTestDir).
func savedFailures(name string) []string {
	dir := saveDir()
	if dir == "off" {
		return nil
	}
	files := tracesIn(testDir(dir, name))
	if old := legacyTestDir(dir, name); old != "" {
		files = append(files, tracesIn(old)...)
	}
	return files
}

// tracesIn lists the saved traces in dir, sorted.
func tracesIn(dir string) []string {
	entries, _ := os.ReadDir(dir) // none saved: no directory
	var files []string
	for _, e := range entries {
		// Only regular files: opening a FIFO would hang the test.
		if n := e.Name(); e.Type().IsRegular() && strings.HasSuffix(n, ".trace") && !strings.HasPrefix(n, ".") {
			files = append(files, filepath.Join(dir, n))
		}
	}
	return files // ReadDir sorts by name
}
