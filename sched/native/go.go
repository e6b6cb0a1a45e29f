package native

import "github.com/dstgo/dst/internal/engine"

// The go statement. The function value and its arguments are evaluated by
// the caller, at the go statement and in that order, as Go's are: go f(x, y)
// becomes Go2(f).Start(x, y), and go o.M(x) Go1(o.M).Start(x), which
// evaluates the receiver there too. The arguments are passed to Start, not
// to Go2, so that each converts to its parameter's type as in a call. GoN
// takes a function of N parameters and no results; GoNRk one with k
// results, which are dropped.

// goNil panics as a go statement of a nil function does.
func goNil() { panic("go of nil func value") }

// Go is go f().
func Go(f func()) {
	if f == nil {
		goNil()
	}
	if g := engine.Current(); g != nil {
		g.Go(f)
		return
	}
	go f()
}

// Go1 is go f(a): Go1(f).Start(a).
func Go1[A any](f func(A)) go1[A] { return go1[A]{f} }

type go1[A any] struct{ f func(A) }

// Start starts f(a) in a new goroutine.
func (x go1[A]) Start(a A) {
	f := x.f
	if f == nil {
		goNil()
	}
	if g := engine.Current(); g != nil {
		g.Go(func() { f(a) })
		return
	}
	go f(a)
}

// Go2 is go f(a, b): Go2(f).Start(a, b).
func Go2[A, B any](f func(A, B)) go2[A, B] { return go2[A, B]{f} }

type go2[A, B any] struct{ f func(A, B) }

// Start starts f(a, b) in a new goroutine.
func (x go2[A, B]) Start(a A, b B) {
	f := x.f
	if f == nil {
		goNil()
	}
	if g := engine.Current(); g != nil {
		g.Go(func() { f(a, b) })
		return
	}
	go f(a, b)
}

// Go3 is go f(a, b, c): Go3(f).Start(a, b, c).
func Go3[A, B, C any](f func(A, B, C)) go3[A, B, C] { return go3[A, B, C]{f} }

type go3[A, B, C any] struct{ f func(A, B, C) }

// Start starts f(a, b, c) in a new goroutine.
func (x go3[A, B, C]) Start(a A, b B, c C) {
	f := x.f
	if f == nil {
		goNil()
	}
	if g := engine.Current(); g != nil {
		g.Go(func() { f(a, b, c) })
		return
	}
	go f(a, b, c)
}

// Go4 is go f(a, b, c, d): Go4(f).Start(a, b, c, d).
func Go4[A, B, C, D any](f func(A, B, C, D)) go4[A, B, C, D] { return go4[A, B, C, D]{f} }

type go4[A, B, C, D any] struct{ f func(A, B, C, D) }

// Start starts f(a, b, c, d) in a new goroutine.
func (x go4[A, B, C, D]) Start(a A, b B, c C, d D) {
	f := x.f
	if f == nil {
		goNil()
	}
	if g := engine.Current(); g != nil {
		g.Go(func() { f(a, b, c, d) })
		return
	}
	go f(a, b, c, d)
}

// Go0R1 is go f(): Go0R1(f).Start().
func Go0R1[R1 any](f func() R1) go0r1[R1] { return go0r1[R1]{f} }

type go0r1[R1 any] struct{ f func() R1 }

// Start starts f() in a new goroutine.
func (x go0r1[R1]) Start() {
	f := x.f
	if f == nil {
		goNil()
	}
	if g := engine.Current(); g != nil {
		g.Go(func() { f() })
		return
	}
	go f()
}

// Go1R1 is go f(a): Go1R1(f).Start(a).
func Go1R1[A, R1 any](f func(A) R1) go1r1[A, R1] { return go1r1[A, R1]{f} }

type go1r1[A, R1 any] struct{ f func(A) R1 }

// Start starts f(a) in a new goroutine.
func (x go1r1[A, R1]) Start(a A) {
	f := x.f
	if f == nil {
		goNil()
	}
	if g := engine.Current(); g != nil {
		g.Go(func() { f(a) })
		return
	}
	go f(a)
}

// Go2R1 is go f(a, b): Go2R1(f).Start(a, b).
func Go2R1[A, B, R1 any](f func(A, B) R1) go2r1[A, B, R1] { return go2r1[A, B, R1]{f} }

type go2r1[A, B, R1 any] struct{ f func(A, B) R1 }

// Start starts f(a, b) in a new goroutine.
func (x go2r1[A, B, R1]) Start(a A, b B) {
	f := x.f
	if f == nil {
		goNil()
	}
	if g := engine.Current(); g != nil {
		g.Go(func() { f(a, b) })
		return
	}
	go f(a, b)
}

// Go3R1 is go f(a, b, c): Go3R1(f).Start(a, b, c).
func Go3R1[A, B, C, R1 any](f func(A, B, C) R1) go3r1[A, B, C, R1] { return go3r1[A, B, C, R1]{f} }

type go3r1[A, B, C, R1 any] struct{ f func(A, B, C) R1 }

// Start starts f(a, b, c) in a new goroutine.
func (x go3r1[A, B, C, R1]) Start(a A, b B, c C) {
	f := x.f
	if f == nil {
		goNil()
	}
	if g := engine.Current(); g != nil {
		g.Go(func() { f(a, b, c) })
		return
	}
	go f(a, b, c)
}

// Go4R1 is go f(a, b, c, d): Go4R1(f).Start(a, b, c, d).
func Go4R1[A, B, C, D, R1 any](f func(A, B, C, D) R1) go4r1[A, B, C, D, R1] {
	return go4r1[A, B, C, D, R1]{f}
}

type go4r1[A, B, C, D, R1 any] struct{ f func(A, B, C, D) R1 }

// Start starts f(a, b, c, d) in a new goroutine.
func (x go4r1[A, B, C, D, R1]) Start(a A, b B, c C, d D) {
	f := x.f
	if f == nil {
		goNil()
	}
	if g := engine.Current(); g != nil {
		g.Go(func() { f(a, b, c, d) })
		return
	}
	go f(a, b, c, d)
}

// Go0R2 is go f(): Go0R2(f).Start().
func Go0R2[R1, R2 any](f func() (R1, R2)) go0r2[R1, R2] { return go0r2[R1, R2]{f} }

type go0r2[R1, R2 any] struct{ f func() (R1, R2) }

// Start starts f() in a new goroutine.
func (x go0r2[R1, R2]) Start() {
	f := x.f
	if f == nil {
		goNil()
	}
	if g := engine.Current(); g != nil {
		g.Go(func() { f() })
		return
	}
	go f()
}

// Go1R2 is go f(a): Go1R2(f).Start(a).
func Go1R2[A, R1, R2 any](f func(A) (R1, R2)) go1r2[A, R1, R2] { return go1r2[A, R1, R2]{f} }

type go1r2[A, R1, R2 any] struct{ f func(A) (R1, R2) }

// Start starts f(a) in a new goroutine.
func (x go1r2[A, R1, R2]) Start(a A) {
	f := x.f
	if f == nil {
		goNil()
	}
	if g := engine.Current(); g != nil {
		g.Go(func() { f(a) })
		return
	}
	go f(a)
}

// Go2R2 is go f(a, b): Go2R2(f).Start(a, b).
func Go2R2[A, B, R1, R2 any](f func(A, B) (R1, R2)) go2r2[A, B, R1, R2] {
	return go2r2[A, B, R1, R2]{f}
}

type go2r2[A, B, R1, R2 any] struct{ f func(A, B) (R1, R2) }

// Start starts f(a, b) in a new goroutine.
func (x go2r2[A, B, R1, R2]) Start(a A, b B) {
	f := x.f
	if f == nil {
		goNil()
	}
	if g := engine.Current(); g != nil {
		g.Go(func() { f(a, b) })
		return
	}
	go f(a, b)
}

// Go3R2 is go f(a, b, c): Go3R2(f).Start(a, b, c).
func Go3R2[A, B, C, R1, R2 any](f func(A, B, C) (R1, R2)) go3r2[A, B, C, R1, R2] {
	return go3r2[A, B, C, R1, R2]{f}
}

type go3r2[A, B, C, R1, R2 any] struct{ f func(A, B, C) (R1, R2) }

// Start starts f(a, b, c) in a new goroutine.
func (x go3r2[A, B, C, R1, R2]) Start(a A, b B, c C) {
	f := x.f
	if f == nil {
		goNil()
	}
	if g := engine.Current(); g != nil {
		g.Go(func() { f(a, b, c) })
		return
	}
	go f(a, b, c)
}

// Go4R2 is go f(a, b, c, d): Go4R2(f).Start(a, b, c, d).
func Go4R2[A, B, C, D, R1, R2 any](f func(A, B, C, D) (R1, R2)) go4r2[A, B, C, D, R1, R2] {
	return go4r2[A, B, C, D, R1, R2]{f}
}

type go4r2[A, B, C, D, R1, R2 any] struct{ f func(A, B, C, D) (R1, R2) }

// Start starts f(a, b, c, d) in a new goroutine.
func (x go4r2[A, B, C, D, R1, R2]) Start(a A, b B, c C, d D) {
	f := x.f
	if f == nil {
		goNil()
	}
	if g := engine.Current(); g != nil {
		g.Go(func() { f(a, b, c, d) })
		return
	}
	go f(a, b, c, d)
}
