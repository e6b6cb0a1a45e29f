package kvlog

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/sched/cluster"
)

const addr = "127.0.0.1:7070"

// testAckedWritesSurvive writes keys to a store that is a node of a
// cluster, then reads back every write the store acknowledged: each must
// be there, whatever crashes the node went through (under dstreplay test
// with -dst.faults=node.crash=...; natively it never crashes).
func testAckedWritesSurvive(t *testing.T, fixed bool) {
	c := cluster.New()
	defer c.Close()
	if _, err := c.Add("kv", t.TempDir(), func(dir string) (func(), error) { return Serve(addr, dir, fixed) }); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{}, Timeout: time.Second}
	defer client.CloseIdleConnections()
	acked := map[string]string{}
	for i := range 6 {
		k, v := fmt.Sprint("k", i), fmt.Sprint("v", i)
		req, _ := http.NewRequest(http.MethodPut, "http://"+addr+"/"+k, strings.NewReader(v))
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusNoContent {
				acked[k] = v
			}
		}
	}
	for k, v := range acked {
		got, err := get(client, k)
		if got != v {
			t.Fatalf("%s=%s was acknowledged, and reads %q (%v): an acknowledged write was lost", k, v, got, err)
		}
	}
}

// get reads key, waiting for the node while it is down (for up to a few
// seconds).
func get(client *http.Client, key string) (string, error) {
	var err error
	for range 100 {
		var resp *http.Response
		if resp, err = client.Get("http://" + addr + "/" + key); err != nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return "", fmt.Errorf("%s", resp.Status)
		}
		return string(b), nil
	}
	return "", err
}

func TestBuggyAckedWritesSurvive(t *testing.T) { testAckedWritesSurvive(t, false) }
func TestFixedAckedWritesSurvive(t *testing.T) { testAckedWritesSurvive(t, true) }
