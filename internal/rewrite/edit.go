package rewrite

import (
	"cmp"
	"fmt"
	"go/token"
	"slices"
	"strings"
)

// editor rewrites a file's text by replacing ranges of it, leaving every
// other byte (comments, layout) as it was. After each replacement it puts a
// /*line*/ directive naming the original file and the position of the text
// that follows, so that the compiler, stack traces, the race detector and
// delve see every original token at its original line and column, and
// generated code at the line of the construct it replaces.
type editor struct {
	src   []byte
	tf    *token.File
	name  string // the original file's path, for the directives
	edits []edit
}

type edit struct {
	start, end int // byte offsets into src
	text       string
	seq        int // registration order, for insertions at one offset
}

func (e *editor) off(p token.Pos) int { return e.tf.Offset(p) }

// replace registers the replacement of [from, to) by text. Edits nest: a
// replacement's text is usually built with sub, from the ranges it covers,
// and an edit inside another one is then applied only through it.
func (e *editor) replace(from, to token.Pos, text string) {
	e.edits = append(e.edits, edit{e.off(from), e.off(to), text, len(e.edits)})
}

// insert registers text to go before the token at p.
func (e *editor) insert(p token.Pos, text string) { e.replace(p, p, text) }

// directive is the /*line*/ comment that gives the byte at offset off its
// original position.
func (e *editor) directive(off int) string {
	p := e.tf.Position(e.tf.Pos(off))
	return fmt.Sprintf("/*line %s:%d:%d*/", e.name, p.Line, p.Column)
}

// sub is the text of [from, to) with the edits inside it applied, led by a
// directive so that it keeps its original position wherever it is placed.
func (e *editor) sub(from, to token.Pos) string {
	return e.directive(e.off(from)) + e.render(e.off(from), e.off(to))
}

// render is the text of src[start:end] with the outermost edits inside the
// range applied.
func (e *editor) render(start, end int) string {
	var in []edit
	for _, x := range e.edits {
		if x.start >= start && x.end <= end && !(x.start == x.end && (x.start == start && start != 0 || x.start == end && end != len(e.src))) {
			in = append(in, x)
		}
	}
	slices.SortStableFunc(in, func(a, b edit) int {
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		if c := cmp.Compare(b.end, a.end); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	var b strings.Builder
	pos := start
	for _, x := range in {
		if x.start < pos {
			continue // inside an edit already applied
		}
		b.Write(e.src[pos:x.start])
		b.WriteString(x.text)
		b.WriteString(e.directive(x.end))
		pos = x.end
	}
	b.Write(e.src[pos:end])
	return b.String()
}
