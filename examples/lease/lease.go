package lease

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Tick is how often a node acts as the leader, or asks for the lease.
const Tick = 10 * time.Millisecond

// Grant is a lease the lock server gave: to Node, from From until Until.
type Grant struct {
	Node        string
	From, Until time.Time
}

// LockServer grants the lease over HTTP: POST /lease?node=NAME gives it to
// NAME, for TTL from now, unless another node holds it (409 Conflict). The
// answer's body is the TTL in milliseconds.
type LockServer struct {
	TTL    time.Duration
	mu     sync.Mutex
	grants []Grant
}

// NewLockServer returns a lock server that grants leases for ttl.
func NewLockServer(ttl time.Duration) *LockServer { return &LockServer{TTL: ttl} }

func (s *LockServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/lease" {
		http.NotFound(w, r)
		return
	}
	node := r.FormValue("node")
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if k := len(s.grants) - 1; k >= 0 && s.grants[k].Node != node && now.Before(s.grants[k].Until) {
		http.Error(w, "held by "+s.grants[k].Node, http.StatusConflict)
		return
	}
	s.grants = append(s.grants, Grant{Node: node, From: now, Until: now.Add(s.TTL)})
	fmt.Fprint(w, s.TTL.Milliseconds())
}

// Holder is the node the server had granted the lease to at t, or "".
func (s *LockServer) Holder(t time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	holder := ""
	for _, g := range s.grants {
		if !t.Before(g.From) && t.Before(g.Until) {
			holder = g.Node // the latest grant that covers t
		}
	}
	return holder
}

// Node takes part in the election through a lock server.
type Node struct {
	Name   string
	server string // the lock server's base URL
	client *http.Client
	fixed  bool
	until  time.Time // when it believes its lease ends
}

// NewNode returns the node name, which asks the lock server at base URL
// server for the lease; fixed counts the lease from when the request was
// sent.
func NewNode(name, server string, client *http.Client, fixed bool) *Node {
	return &Node{Name: name, server: server, client: client, fixed: fixed}
}

// Acquire asks for the lease; ok is whether the node holds it now.
func (n *Node) Acquire() (ok bool, err error) {
	sent := time.Now()
	resp, err := n.client.Post(n.server+"/lease?node="+n.Name, "text/plain", nil)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return false, err
	}
	if resp.StatusCode == http.StatusConflict {
		return false, nil
	}
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("lease: %s", resp.Status)
	}
	ms, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return false, fmt.Errorf("lease: the TTL %q: %v", b, err)
	}
	ttl := time.Duration(ms) * time.Millisecond
	if n.fixed {
		n.until = sent.Add(ttl) // the server granted it after this
	} else {
		n.until = time.Now().Add(ttl) // the bug: counted from when the answer came
	}
	return true, nil
}

// Leader reports whether the node believes it holds the lease.
func (n *Node) Leader() bool { return time.Now().Before(n.until) }

// Run takes part until stop: every Tick, work is called (with the time)
// if the node believes it leads; else the node asks for the lease.
func (n *Node) Run(stop time.Time, work func(at time.Time)) {
	for now := time.Now(); now.Before(stop); now = time.Now() {
		if now.Before(n.until) {
			work(now)
		} else if _, err := n.Acquire(); err != nil {
			return
		}
		time.Sleep(Tick)
	}
}
