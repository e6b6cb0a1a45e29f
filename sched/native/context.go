package native

import (
	"context"
	"time"

	sctx "github.com/dstgo/dst/sched/context"
)

// Package context's functions whose contexts the scheduler sees (package
// sched/context): inside a run, the Done channel of each context made is
// known to the run from the first call of its Done method, so that
// <-ctx.Done() and a select case on it are scheduling points.

// WithCancel is context.WithCancel.
func WithCancel(parent context.Context) (context.Context, context.CancelFunc) {
	return sctx.WithCancel(parent)
}

// WithCancelCause is context.WithCancelCause.
func WithCancelCause(parent context.Context) (context.Context, context.CancelCauseFunc) {
	return sctx.WithCancelCause(parent)
}

// WithDeadline is context.WithDeadline.
func WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	return sctx.WithDeadline(parent, d)
}

// WithDeadlineCause is context.WithDeadlineCause.
func WithDeadlineCause(parent context.Context, d time.Time, cause error) (context.Context, context.CancelFunc) {
	return sctx.WithDeadlineCause(parent, d, cause)
}

// WithTimeout is context.WithTimeout.
func WithTimeout(parent context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	return sctx.WithTimeout(parent, timeout)
}

// WithTimeoutCause is context.WithTimeoutCause.
func WithTimeoutCause(parent context.Context, timeout time.Duration, cause error) (context.Context, context.CancelFunc) {
	return sctx.WithTimeoutCause(parent, timeout, cause)
}

// ContextAfterFunc is context.AfterFunc.
func ContextAfterFunc(ctx context.Context, f func()) (stop func() bool) {
	return sctx.AfterFunc(ctx, f)
}

// Cause is context.Cause.
func Cause(ctx context.Context) error { return sctx.Cause(ctx) }
