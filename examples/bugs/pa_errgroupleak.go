package bugs

import (
	"fmt"
	"runtime"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// A fan-out fetches several shards in parallel, each worker sending its
// result on an unbuffered channel, and the collector returns at the first
// error. The workers whose results were not collected yet block on their
// sends forever. Whether any is left depends on the order the results come
// in: only when the failing shard answers last does nobody leak. The fixed
// twin's channel has room for every result.
type paShardResult struct {
	shard int
	rows  int
	err   error
}

func paFetchShard(shard int) paShardResult {
	if shard == 2 {
		return paShardResult{shard: shard, err: fmt.Errorf("shard %d: unavailable", shard)}
	}
	return paShardResult{shard: shard, rows: 10 * shard}
}

func paFetchAll(shards []int, buffer int) (int, error) {
	results := chans.Make[paShardResult](buffer)
	for _, s := range shards {
		sched.Go(func() { results.Send(paFetchShard(s)) })
	}
	total := 0
	for range shards {
		r := results.Recv()
		if r.err != nil {
			return 0, r.err // the other workers are still sending
		}
		total += r.rows
	}
	return total, nil
}

func init() {
	shards := []int{1, 2, 3}
	run := func(buffer int) func(*schedtest.T) {
		return func(t *schedtest.T) {
			if _, err := paFetchAll(shards, buffer); err == nil {
				t.Errorf("shard 2 failed but the fan-out did not report it")
			}
		}
	}
	register(Pattern{
		Name:   "first-error-leaks-senders",
		Class:  "communication deadlock / channel",
		Buggy:  run(0),
		Fixed:  run(len(shards)),
		Expect: schedtest.Leak,
		Native: func() error {
			n := runtime.NumGoroutine()
			err := runNative(func() error {
				type result struct {
					rows int
					err  error
				}
				results := make(chan result)
				for _, s := range shards {
					go func() {
						if s == 2 {
							results <- result{err: fmt.Errorf("shard %d: unavailable", s)}
							return
						}
						results <- result{rows: 10 * s}
					}()
				}
				for range shards {
					if r := <-results; r.err != nil {
						return nil // the error is expected; the leak is the bug
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			return waitLeaks(n)
		},
	})
}
