package chans_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// neverMade is the element type of no channel that Make makes in this test
// binary.
type neverMade struct{ a, b int8 }

// TestUntyped: a *Chan seen as Untyped sends, receives and selects with
// reflect.Values of its element type, an interface type included, inside a
// run and outside one, and its values are not addressable, as reflect's;
// MakeOf makes channels of the element types it knows, and of no other.
func TestUntyped(t *testing.T) {
	body := func(t testing.TB) {
		c := chans.MakeOf(reflect.TypeFor[error](), 1)
		if c == nil {
			t.Fatal("MakeOf does not know error")
		}
		if c.Elem() != reflect.TypeFor[error]() || c.Cap() != 1 {
			t.Errorf("Elem %v, Cap %d", c.Elem(), c.Cap())
		}
		c.SendValue(reflect.Zero(reflect.TypeFor[error]()))
		x, ok := c.RecvValue()
		if x.Kind() != reflect.Interface || !x.IsNil() || !ok || x.CanAddr() {
			t.Errorf("RecvValue gave %v (%v, addressable %v) %v", x, x.Kind(), x.CanAddr(), ok)
		}
		var sentOK bool
		recv, got := c.CaseRecvValue(&sentOK)
		if i := chans.Select(c.CaseSendValue(reflect.ValueOf(errors.New("e"))), chans.Default()); i != 0 {
			t.Fatalf("send case: %d", i)
		}
		if i := chans.Select(recv, chans.Default()); i != 0 || got().Type() != reflect.TypeFor[error]() || !sentOK {
			t.Errorf("receive case: %d %v %v", i, got(), sentOK)
		}
		c.Close()
		if x, ok := c.RecvValue(); !x.IsNil() || ok {
			t.Errorf("closed: %v %v", x, ok)
		}
		if chans.MakeOf(reflect.TypeFor[neverMade](), 0) != nil {
			t.Error("MakeOf made a channel of a type no channel of was made")
		}
		chans.Make[struct{ a, b uint8 }](0)
		if chans.MakeOf(reflect.TypeFor[struct{ a, b uint8 }](), 0) == nil {
			t.Error("MakeOf does not know the element type of a channel Make made")
		}
	}
	body(t)
	explorePass(t, 10, func(st *schedtest.T) {
		body(st)
		sched.Go(func() {})
	})
}
