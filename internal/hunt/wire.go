package hunt

// The line protocol between a test binary that hunts (package schedtest,
// run with -dst.worker) and the coordinator (dstreplay hunt), which starts
// the binaries as workers and reads their standard output: each protocol
// line is a prefix and one JSON object. Other lines are the test's own
// output.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// The prefixes of the two kinds of line, with the space that follows them.
const (
	StatusPrefix  = "dst-hunt "
	FailurePrefix = "dst-hunt-failure "
)

// StatusLine is a worker's progress, printed once a second and once more,
// Final, when its hunt ends. Execs, Failing, Failures and New count from
// the start of the process; Corpus and Cover are current sizes.
type StatusLine struct {
	Test     string `json:"test"`
	Worker   int    `json:"worker"`
	Execs    int64  `json:"execs"`
	Failing  int64  `json:"failing"` // executions that failed
	Corpus   int    `json:"corpus"`
	Cover    int    `json:"cover"`
	Failures int    `json:"failures"` // distinct failures found and saved
	New      int64  `json:"new"`
	Final    bool   `json:"final"`
}

// FailureLine is a distinct failure that a worker found, shrank and saved: its
// trace and its entropy input, and the size of its schedule before and
// after shrinking.
type FailureLine struct {
	Test    string `json:"test"`
	Worker  int    `json:"worker"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// Signature identifies the failure across schedules (the loop's), where
	// the message may vary: the hunt counts failures by it.
	Signature string `json:"signature,omitempty"`
	// File and Line are the line of the code under test the failure is
	// best read at (where a check failed, a goroutine panicked or is
	// blocked), for annotations; File is "" when it is not known.
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Trace   string `json:"trace"`
	Entropy string `json:"entropy"`
	Before  Size   `json:"before"`
	After   Size   `json:"after"`
}

// Print writes v (a StatusLine or a FailureLine) to w as one protocol line.
func Print(w io.Writer, v any) error {
	prefix := StatusPrefix
	switch v.(type) {
	case StatusLine, *StatusLine:
	case FailureLine, *FailureLine:
		prefix = FailurePrefix
	default:
		return fmt.Errorf("hunt: cannot print a %T", v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s%s\n", prefix, b)
	return err
}

// Parse reads one line of a worker's output: a status, a failure, or (both
// nil) other output. A line with a prefix but no valid object after it is
// an error.
func Parse(line []byte) (*StatusLine, *FailureLine, error) {
	line = bytes.TrimRight(line, "\r\n")
	switch {
	case bytes.HasPrefix(line, []byte(StatusPrefix)):
		var st StatusLine
		if err := json.Unmarshal(line[len(StatusPrefix):], &st); err != nil {
			return nil, nil, fmt.Errorf("bad status line: %v", err)
		}
		return &st, nil, nil
	case bytes.HasPrefix(line, []byte(FailurePrefix)):
		var f FailureLine
		if err := json.Unmarshal(line[len(FailurePrefix):], &f); err != nil {
			return nil, nil, fmt.Errorf("bad failure line: %v", err)
		}
		return nil, &f, nil
	}
	return nil, nil, nil
}
