package bugs

import (
	"fmt"
	"slices"
	"sync"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// A batch job that walks a result set with a cursor, declared outside the
// loop, and hands each row to a goroutine. The goroutines capture the
// cursor, not the row: by the time one runs, the loop may have advanced the
// cursor, so some rows are processed twice and others never. (Go 1.22 made
// the loop variable per iteration; a variable declared outside the loop is
// still shared.) The cursor is locked, so this is not a data race, only the
// wrong value. The fixed twin reads the row in the loop and captures that.
type ccCursor struct {
	mu   sched.Mutex
	rows []string
	pos  int
}

func (c *ccCursor) next() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pos+1 >= len(c.rows) {
		return false
	}
	c.pos++
	return true
}

func (c *ccCursor) row() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rows[c.pos]
}

type ccSink struct {
	mu   sched.Mutex
	done []string
}

func (s *ccSink) process(row string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = append(s.done, row)
}

var ccRows = []string{"alice", "bob", "carol"}

func ccCheck(done []string) error {
	slices.Sort(done)
	if !slices.Equal(done, ccRows) {
		return fmt.Errorf("processed %v, want each of %v once", done, ccRows)
	}
	return nil
}

func init() {
	run := func(buggy bool) func(*schedtest.T) {
		return func(t *schedtest.T) {
			cur := &ccCursor{rows: ccRows, pos: -1}
			sink := &ccSink{}
			var wg sched.WaitGroup
			for cur.next() {
				if buggy {
					wg.Go(func() { sink.process(cur.row()) })
				} else {
					row := cur.row()
					wg.Go(func() { sink.process(row) })
				}
			}
			wg.Wait()
			sink.mu.Lock()
			defer sink.mu.Unlock()
			if err := ccCheck(sink.done); err != nil {
				t.Errorf("%v", err)
			}
		}
	}
	register(Pattern{
		Name:   "closure-capture",
		Class:  "non-blocking / anonymous function (closure capture)",
		Buggy:  run(true),
		Fixed:  run(false),
		Expect: schedtest.TestFailed,
		Native: func() error {
			return runNative(func() error {
				var (
					mu      sync.Mutex // guards pos and done
					pos     = -1
					done    []string
					wg      sync.WaitGroup
					current = func() string { mu.Lock(); defer mu.Unlock(); return ccRows[pos] }
				)
				next := func() bool {
					mu.Lock()
					defer mu.Unlock()
					if pos+1 >= len(ccRows) {
						return false
					}
					pos++
					return true
				}
				for next() {
					wg.Add(1)
					go func() {
						defer wg.Done()
						row := current()
						mu.Lock()
						done = append(done, row)
						mu.Unlock()
					}()
				}
				wg.Wait()
				return ccCheck(done)
			})
		},
	})
}
