package replica

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/dstgo/dst/sched/schedtest"
)

// BenchmarkGet is one GET of a key from a node over HTTP, with the client
// keeping its connection: "loopback" outside any run (net/http as it
// ships, over real loopback TCP, under go test; the baseline), and
// "simulated" inside runs of getsPerRun GETs each, where, under dstreplay
// test -wrap, net/http's goroutines are the run's over the simulated
// network (the run's own cost included). The test file imports the tool
// for the runs; the package itself does not.
//
//	go tool dstreplay test -wrap ./examples/replica -run XXX -bench Get
func BenchmarkGet(b *testing.B) {
	b.Run("loopback", func(b *testing.B) {
		srv, c := serve()
		defer srv.Close()
		defer c.CloseIdleConnections()
		for b.Loop() {
			get(b, c, srv.URL)
		}
	})
	b.Run("simulated", func(b *testing.B) {
		if os.Getenv("DST_REWRITTEN") == "" {
			b.Skip("needs net/http on the scheduler: run under dstreplay test -wrap")
		}
		n := b.N
		b.ResetTimer()
		for n > 0 {
			k := min(n, getsPerRun)
			n -= k
			res, err := schedtest.Run(schedtest.Options{Seed: uint64(n) + 1}, func(t *schedtest.T) {
				srv, c := serve()
				defer srv.Close()
				defer c.CloseIdleConnections()
				for range k {
					get(t, c, srv.URL)
				}
			})
			if err != nil || res.Failure != nil {
				b.Fatal(err, res.Failure)
			}
		}
	})
}

const getsPerRun = 100

// serve starts a node with x=1 and a client for it.
func serve() (*httptest.Server, *http.Client) {
	n := NewNode("", true)
	n.data["x"] = "1"
	return httptest.NewServer(n), &http.Client{}
}

func get(t interface{ Fatalf(string, ...any) }, c *http.Client, base string) {
	resp, err := c.Get(base + "/kv/x")
	if err != nil {
		t.Fatalf("%v", err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(b) != "1" {
		t.Fatalf("got %q, %v", b, err)
	}
}
