//go:build !linux

package engine

import "time"

func newTicker(d time.Duration) ticker { return timeTicker{time.NewTicker(d)} }
