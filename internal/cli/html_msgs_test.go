package cli_test

import (
	"encoding/json"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/internal/cli"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/cluster"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simnet"
	"github.com/dstgo/dst/trace"
	"github.com/dstgo/dst/vtime"
)

// messagesTrace writes the trace of a run where the test's goroutine
// sends a request to a server on the simulated network, in two writes,
// and reads its answer.
func messagesTrace(t *testing.T) string {
	t.Helper()
	res, err := schedtest.Run(schedtest.Options{Seed: 4, Record: true}, func(st *schedtest.T) {
		l, err := simnet.Listen("tcp", "127.0.0.1:8080")
		if err != nil {
			st.Fatal(err)
		}
		defer l.Close()
		var wg sched.WaitGroup
		wg.Go(func() {
			s, err := l.Accept()
			if err != nil {
				return
			}
			io.ReadAll(s)
			s.Write([]byte("answer"))
			s.Close()
		})
		c, err := simnet.Dial("tcp", "127.0.0.1:8080")
		if err != nil {
			st.Fatal(err)
		}
		c.Write([]byte("GET "))
		c.Write([]byte("/lease"))
		c.(interface{ CloseWrite() error }).CloseWrite()
		io.ReadAll(c)
		c.Close()
		wg.Wait()
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	path := filepath.Join(t.TempDir(), "messages.trace")
	if err := res.WriteTrace(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHTMLMessages: the page pairs each read on a simulated connection
// with the sends whose bytes it got, by their offsets, and names each lane
// that sent by its node.
func TestHTMLMessages(t *testing.T) {
	path := messagesTrace(t)
	if _, e, code := run("html", path); code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, e)
	}
	page, p := readPage(t, strings.TrimSuffix(path, ".trace")+".html")
	f := readFacts(t, path)
	checkPage(t, page, p, f)
	msgs := p
	if len(msgs.Msgs)%3 != 0 || len(msgs.Msgs) == 0 {
		t.Fatalf("msgs %v: want triples", msgs.Msgs)
	}
	var bytes int64
	for k := 0; k < len(msgs.Msgs); k += 3 {
		s, r, n := f.evs[msgs.Msgs[k]], f.evs[msgs.Msgs[k+1]], msgs.Msgs[k+2]
		if s.Kind != trace.KindIO || trace.OpName(s.Op) != "Send" || r.Kind != trace.KindIO || trace.OpName(r.Op) != "Recv" || s.Obj != r.Obj || n <= 0 || n > min(s.N, r.N) {
			t.Errorf("message %d: %q to %q, %d bytes", k/3, f.lines[msgs.Msgs[k]], f.lines[msgs.Msgs[k+1]], n)
		}
		bytes += n
	}
	if want := int64(len("GET /lease") + len("answer")); bytes != want {
		t.Errorf("the messages carry %d bytes, want %d", bytes, want)
	}
	names := map[string]bool{}
	for _, l := range p.Lanes {
		names[l.Name] = true
	}
	if !names["g1 · the test"] || !names["g2 · 127.0.0.1:8080"] {
		t.Errorf("the lanes are %v; want the test's goroutine and the server's named by their nodes", names)
	}
}

// TestHTMLMessagesChromium: the page draws the messages, and its legend
// says what their lines are.
func TestHTMLMessagesChromium(t *testing.T) {
	bin := browser(t)
	path := messagesTrace(t)
	if _, e, code := run("html", path); code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, e)
	}
	abs, err := filepath.Abs(strings.TrimSuffix(path, ".trace") + ".html")
	if err != nil {
		t.Fatal(err)
	}
	dom := string(headless(t, bin, "file://"+filepath.ToSlash(abs), "--dump-dom"))
	if !strings.Contains(dom, `data-ready="1"`) {
		t.Fatalf("the script did not finish:\n%s", tail(dom, 3000))
	}
	drawn := regexp.MustCompile(`data-drawn="[^"]*"`).FindString(dom)
	if m := regexp.MustCompile(`msgs=(\d+)`).FindStringSubmatch(drawn); m == nil || m[1] == "0" {
		t.Errorf("the canvas notes %q: want messages drawn", drawn)
	}
	if !strings.Contains(dom, "messages</span>") && !strings.Contains(dom, ">messages<") {
		t.Errorf("the legend does not name the messages:\n%s", regexp.MustCompile(`(?s)<div id="legend">(.*?)</div>`).FindString(dom))
	}
}

// TestExportMessages: export draws each message as a flow from the
// sending goroutine's track, at the send, to the reading one's, at the
// read, and names the I/O events by their operation, direction and bytes.
func TestExportMessages(t *testing.T) {
	path := messagesTrace(t)
	out, e, code := run("export", path)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, e)
	}
	var doc struct {
		TraceEvents []struct {
			Name, Ph string
			Tid      int32
			ID       *int64
			Ts       float64
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	type end struct {
		tid int32
		ts  float64
	}
	starts, finishes := map[int64]end{}, map[int64]end{}
	named := false
	for _, te := range doc.TraceEvents {
		switch {
		case te.Name == "message" && te.Ph == "s":
			starts[*te.ID] = end{te.Tid, te.Ts}
		case te.Name == "message" && te.Ph == "f":
			finishes[*te.ID] = end{te.Tid, te.Ts}
		case strings.HasPrefix(te.Name, "Send tcp 127.0.0.1:") && strings.HasSuffix(te.Name, ": 4 bytes"):
			named = true
		}
	}
	if len(starts) < 3 || len(starts) != len(finishes) {
		t.Fatalf("%d message flows start, %d finish; want the request's two writes and the answer", len(starts), len(finishes))
	}
	for id, s := range starts {
		f := finishes[id]
		if s.tid == f.tid || f.ts < s.ts {
			t.Errorf("message %d goes from g%d at %v to g%d at %v", id, s.tid, s.ts, f.tid, f.ts)
		}
	}
	if !named {
		t.Error(`no instant named "Send tcp 127.0.0.1:...: 4 bytes"`)
	}
}

// TestHTMLCrashedLanes: the goroutines of a node that crashed end in the
// trace blocked in Crash, where they were, and their lanes end "crashed",
// not blocked for ever (which would read as a deadlock or a leak).
func TestHTMLCrashedLanes(t *testing.T) {
	res, err := schedtest.Run(schedtest.Options{Seed: 1, Record: true}, func(st *schedtest.T) {
		c := cluster.New()
		defer c.Close()
		n, err := c.Add("a", "", func(string) (func(), error) {
			sched.Go(func() { chans.Make[int](0).Recv() }) // the node's: waits for ever
			return nil, nil
		})
		if err != nil {
			st.Fatal(err)
		}
		vtime.Sleep(time.Millisecond)
		n.Crash()
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	path := filepath.Join(t.TempDir(), "crash.trace")
	if err := res.WriteTrace(path); err != nil {
		t.Fatal(err)
	}
	if _, e, code := run("html", path); code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, e)
	}
	f := readFacts(t, path)
	crashed := map[int32]bool{}
	for _, ev := range f.evs {
		if ev.Kind == trace.KindBlock && trace.OpName(ev.Op) == "Crash" {
			crashed[ev.G] = true
		}
	}
	_, p := readPage(t, strings.TrimSuffix(path, ".trace")+".html")
	ends := 0
	for _, l := range p.Lanes {
		if crashed[l.G] != (l.End == "crashed") {
			t.Errorf("lane g%d ends %q; crashed in the trace: %v", l.G, l.End, crashed[l.G])
		}
		if l.End == "crashed" {
			ends++
		}
	}
	if ends != 1 {
		t.Errorf("%d lanes end crashed, want the node's goroutine's", ends)
	}
}
