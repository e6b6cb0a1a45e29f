// Package testutil holds helpers shared by this module's tests.
package testutil

import (
	"reflect"
	"sort"
	"strings"
)

// MethodSet lists the exported methods of t as "Name(in,...,->,out,...)",
// without the receiver, sorted, so that a shim's method set can be compared
// with the standard type it mirrors.
func MethodSet(t reflect.Type) []string {
	var out []string
	for i := range t.NumMethod() {
		m := t.Method(i)
		var sig []string
		for j := 1; j < m.Type.NumIn(); j++ { // skip the receiver
			sig = append(sig, m.Type.In(j).String())
		}
		sig = append(sig, "->")
		for j := range m.Type.NumOut() {
			sig = append(sig, m.Type.Out(j).String())
		}
		out = append(out, m.Name+"("+strings.Join(sig, ",")+")")
	}
	sort.Strings(out)
	return out
}
