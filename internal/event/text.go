package event

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Format returns the text form of e, one line:
//
//	step g  time  kind fields...  at file:line (function)
//
// labels names objects by id (from KindObject events); objects without a
// label print as "obj#N". The strings of a trace, which is untrusted, are
// escaped (Escape): the line holds no control character.
func (e *Event) Format(labels map[int32]string) string {
	var b strings.Builder
	spec := SpecOf(e.Kind)
	fmt.Fprintf(&b, "%d g%d %s %s", e.Step, e.G, formatTime(e.Time), spec.Name)
	for _, f := range spec.Fields {
		switch f {
		case FieldOp:
			b.WriteString(" " + OpName(e.Op))
		case FieldObj:
			if e.Obj == 0 && e.Kind != KindObject {
				continue // the operation touched no object (Go, Yield)
			}
			if l, ok := labels[e.Obj]; ok && e.Kind != KindObject {
				b.WriteString(" " + Escape(l, false))
			} else {
				fmt.Fprintf(&b, " obj#%d", e.Obj)
			}
		case FieldArg:
			fmt.Fprintf(&b, " %s=%d", spec.ArgName, e.Arg)
		case FieldChoice:
			fmt.Fprintf(&b, " choice=%d", e.Choice)
		case FieldN:
			fmt.Fprintf(&b, " %s=%d", cmp.Or(spec.NName, "of"), e.N)
		case FieldDur:
			if e.Kind == KindIO && e.Dur == 0 {
				continue // at once: most I/O
			}
			fmt.Fprintf(&b, " after=%v", time.Duration(e.Dur))
		case FieldText:
			fmt.Fprintf(&b, " %q", e.Text)
		}
	}
	if e.Loc.File != "" {
		fmt.Fprintf(&b, " at %s:%d (%s)", Escape(filepath.Base(e.Loc.File), false), e.Loc.Line, Escape(shortFunc(e.Loc.Func), false))
	}
	return b.String()
}

func formatTime(ns int64) string { return "+" + time.Duration(ns).String() }

func shortFunc(f string) string {
	if i := strings.LastIndexByte(f, '/'); i >= 0 {
		return f[i+1:]
	}
	return f
}
