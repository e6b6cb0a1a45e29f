package replica

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Node is one replica: a map served over HTTP. A node with a follower is
// a primary: it copies each write to the follower.
type Node struct {
	mu       sync.Mutex
	data     map[string]string
	follower string // the follower's base URL; "" for a follower
	client   *http.Client
	fixed    bool // copy to the follower before acknowledging
	mux      *http.ServeMux
}

// NewNode returns a node; follower is the base URL of the node it copies
// writes to, or "".
func NewNode(follower string, fixed bool) *Node {
	n := &Node{data: map[string]string{}, follower: follower, client: &http.Client{}, fixed: fixed, mux: http.NewServeMux()}
	n.mux.HandleFunc("PUT /kv/{key}", n.put)
	n.mux.HandleFunc("GET /kv/{key}", n.get)
	return n
}

func (n *Node) ServeHTTP(w http.ResponseWriter, r *http.Request) { n.mux.ServeHTTP(w, r) }

func (n *Node) put(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("key")
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	n.mu.Lock()
	n.data[key] = string(b)
	n.mu.Unlock()
	if n.follower != "" {
		if n.fixed {
			if err := n.copy(key, string(b)); err != nil {
				http.Error(w, "not replicated: "+err.Error(), http.StatusServiceUnavailable)
				return
			}
		} else {
			go n.copy(key, string(b)) // the bug: acknowledged before the follower has it
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (n *Node) get(w http.ResponseWriter, r *http.Request) {
	n.mu.Lock()
	v, ok := n.data[r.PathValue("key")]
	n.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	io.WriteString(w, v)
}

// copy writes key=v to the follower.
func (n *Node) copy(key, v string) error {
	return Put(n.client, n.follower, key, v)
}

// Put writes key=v through the node at base.
func Put(c *http.Client, base, key, v string) error {
	req, err := http.NewRequest(http.MethodPut, base+"/kv/"+key, strings.NewReader(v))
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("put %s: %s", key, resp.Status)
	}
	return nil
}

// Get reads key from the node at base; ok is false when it has none.
func Get(c *http.Client, base, key string) (v string, ok bool, err error) {
	resp, err := c.Get(base + "/kv/" + key)
	if err != nil {
		return "", false, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode == http.StatusNotFound {
		return "", false, err
	}
	return string(b), true, nil
}
