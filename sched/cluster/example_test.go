package cluster_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/cluster"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simdisk"
)

// A node that appends a record, syncs it, appends another and crashes
// before it syncs that one: when it starts again it finds the first, and
// of the second what the disk had written back before the power went, a
// part drawn from the entropy (with this seed, a torn part, which it
// leaves out).
func Example() {
	dir, _ := os.MkdirTemp("", "cluster-example-")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "log")
	schedtest.Run(schedtest.Options{Seed: 7}, func(t *schedtest.T) {
		c := cluster.New()
		defer c.Close()
		wrote := chans.Make[struct{}](1)
		starts := 0
		n, err := c.Add("db", dir, func(dir string) (func(), error) {
			starts++
			b, _ := os.ReadFile(path)
			whole := b[:bytes.LastIndexByte(b, '\n')+1] // a torn last record left out
			fmt.Printf("start %d finds %q\n", starts, strings.Fields(string(whole)))
			f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
			if err != nil {
				return nil, err
			}
			if starts == 1 {
				sched.Go(func() {
					simdisk.WriteString(f, "first\n")
					simdisk.Sync(f)
					simdisk.WriteString(f, "second\n") // never synced
					wrote.Send(struct{}{})
				})
			}
			return func() { f.Close() }, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		wrote.Recv()
		n.Crash()
		n.Restart()
	})
	// Output:
	// start 1 finds []
	// start 2 finds ["first"]
}
