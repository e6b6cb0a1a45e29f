package rewrite

import (
	"path/filepath"
	"slices"
)

// The standard library's HTTP stack under the scheduler (StdPackages).
//
// Rewritten like any dependency, net/http and httptest start their
// goroutines (a server's connections and handlers, a transport's dials,
// reads and writes, httptest's serve loop) as goroutines of the run, and
// net.Listen and the dials they make go to simnet's network. What is left
// is state that net/http keeps for the whole process and sets up at its
// first use: DefaultTransport's protocol table and its HTTP/2 connection
// pool (a sync.Once each), and the proxy settings read from the
// environment (another). Set up in the first schedule of a process and not
// in the next ones, they would make a recorded schedule run differently
// when replayed in a new process. The file stdStartFile adds to net/http
// sets all three up when the program starts, before any run, as the first
// request would. So the proxy settings are those of the environment the
// test binary started in: a test that sets HTTP_PROXY itself before its
// first request through DefaultTransport sees it ignored.

// stdStart is the file added to net/http.
const stdStart = `package http

// Added by dstreplay test: what DefaultTransport sets up at its first use,
// set up before any run (internal/rewrite/std.go).
func init() {
	if t, ok := DefaultTransport.(*Transport); ok {
		t.CloseIdleConnections() // its protocol table, and HTTP/2's connection pool
	}
	envProxyFunc()
}
`

// stdStartFile is the file to add to net/http when the listing's build
// rewrites it, by path; none otherwise.
func stdStartFile(pkgs []listed, rewritten []string) map[string]string {
	if !slices.Contains(rewritten, StdPackages[0]) {
		return nil
	}
	for _, p := range pkgs {
		if p.Standard && p.ImportPath == StdPackages[0] {
			return map[string]string{filepath.Join(p.Dir, "zz_dstreplay_start.go"): stdStart}
		}
	}
	return nil
}
