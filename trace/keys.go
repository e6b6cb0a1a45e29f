package trace

import (
	"fmt"
	"strconv"
)

// The header and the outcome are written as key/value strings. These tables
// name every key once, with the field it holds: the writer, the reader and
// the text form (WriteText) all follow them. A key the reader does not
// know is skipped, so a newer writer's extra keys do not break it.

// key is one key of a table for T, with a pointer to its field in a T.
type key[T any] struct {
	name  string
	field func(*T) any // *string, *int, *int64, *bool or *hexUint64
}

// hexUint64 is a field written in hexadecimal (a seed).
type hexUint64 uint64

var headerKeys = []key[Header]{
	{"package", func(h *Header) any { return &h.Package }},
	{"test", func(h *Header) any { return &h.Test }},
	{"go", func(h *Header) any { return &h.GoVersion }},
	{"goos", func(h *Header) any { return &h.GOOS }},
	{"goarch", func(h *Header) any { return &h.GOARCH }},
	{"module", func(h *Header) any { return &h.Module }},
	{"strategy", func(h *Header) any { return &h.Strategy }},
	{"depth", func(h *Header) any { return &h.Depth }},
	{"pctsteps", func(h *Header) any { return &h.PCTSteps }},
	{"maxsteps", func(h *Header) any { return &h.MaxSteps }},
	{"seed", func(h *Header) any { return (*hexUint64)(&h.Seed) }},
	{"detail", func(h *Header) any { return &h.Detail }},
}

var outcomeKeys = []key[Outcome]{
	{"kind", func(o *Outcome) any { return &o.Kind }},
	{"message", func(o *Outcome) any { return &o.Message }},
	{"report", func(o *Outcome) any { return &o.Report }},
	{"steps", func(o *Outcome) any { return &o.Steps }},
	{"switches", func(o *Outcome) any { return &o.Switches }},
	{"goroutines", func(o *Outcome) any { return &o.Goroutines }},
}

// pairsOf is v's fields as key/value strings, in the table's order.
func pairsOf[T any](keys []key[T], v *T) [][2]string {
	p := make([][2]string, 0, len(keys)+4)
	for _, k := range keys {
		var s string
		switch f := k.field(v).(type) {
		case *string:
			s = *f
		case *int:
			s = strconv.Itoa(*f)
		case *int64:
			s = strconv.FormatInt(*f, 10)
		case *bool:
			s = strconv.FormatBool(*f)
		case *hexUint64:
			s = fmt.Sprintf("%#x", uint64(*f))
		}
		p = append(p, [2]string{k.name, s})
	}
	return p
}

// setPair sets the field of v that the key name holds to the value s, and
// reports whether the table knows the key. A number that does not parse
// leaves its field zero, as a reader of an older or newer version would:
// each section's checksum has already caught a damaged one.
func setPair[T any](keys []key[T], v *T, name, s string) bool {
	for _, k := range keys {
		if k.name != name {
			continue
		}
		switch f := k.field(v).(type) {
		case *string:
			*f = s
		case *int:
			*f, _ = strconv.Atoi(s)
		case *int64:
			*f, _ = strconv.ParseInt(s, 10, 64)
		case *bool:
			*f = s == "true"
		case *hexUint64:
			u, _ := strconv.ParseUint(s, 0, 64)
			*f = hexUint64(u)
		}
		return true
	}
	return false
}
