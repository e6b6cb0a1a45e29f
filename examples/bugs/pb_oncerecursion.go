package bugs

import (
	"strings"
	"sync"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// A lazily loaded configuration: Get loads it once, through a Once, on first
// use. Loading fills in a missing timeout from the configured default, and
// does it by calling Get, which calls Do on the same Once from inside its
// own function: Do waits for itself, and every later Get waits behind it.
// The fixed twin's loader reads the values it is building directly.
type orConfig struct {
	once   sched.Once
	source string
	vals   map[string]string
	buggy  bool
}

func (c *orConfig) Get(key string) string {
	c.once.Do(c.load)
	return c.vals[key]
}

func (c *orConfig) load() {
	c.vals = map[string]string{}
	for line := range strings.Lines(c.source) {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			c.vals[k] = v
		}
	}
	if c.vals["timeout"] == "" {
		if c.buggy {
			c.vals["timeout"] = c.Get("default_timeout") // Do within Do
		} else {
			c.vals["timeout"] = c.vals["default_timeout"]
		}
	}
}

const orSource = "addr=:8080\ndefault_timeout=30s\n"

func init() {
	run := func(buggy bool) func(*schedtest.T) {
		return func(t *schedtest.T) {
			c := &orConfig{source: orSource, buggy: buggy}
			var wg sched.WaitGroup
			for _, key := range []string{"addr", "timeout"} {
				wg.Go(func() {
					if c.Get(key) == "" {
						t.Errorf("config %q is empty", key)
					}
				})
			}
			wg.Wait()
		}
	}
	register(Pattern{
		Name:   "once-recursion",
		Class:  "resource deadlock / double locking (recursive Once)",
		Buggy:  run(true),
		Fixed:  run(false),
		Expect: schedtest.Deadlock,
		Native: func() error {
			return runNative(func() error {
				var (
					once sync.Once
					vals map[string]string
					get  func(string) string
				)
				load := func() {
					vals = map[string]string{}
					for line := range strings.Lines(orSource) {
						if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
							vals[k] = v
						}
					}
					if vals["timeout"] == "" {
						vals["timeout"] = get("default_timeout")
					}
				}
				get = func(key string) string {
					once.Do(load)
					return vals[key]
				}
				var wg sync.WaitGroup
				for _, key := range []string{"addr", "timeout"} {
					wg.Add(1)
					go func() { defer wg.Done(); get(key) }()
				}
				wg.Wait()
				return nil
			})
		},
	})
}
