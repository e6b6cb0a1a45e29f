package kvlog

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// SyncEvery is how often the store syncs its log.
const SyncEvery = 5 * time.Millisecond

// Store is the key-value store of one node.
type Store struct {
	fixed bool // answer a PUT only once a sync covers its record

	mu      sync.Mutex
	synced  *sync.Cond // a sync ended, or the store stopped
	data    map[string]string
	log     *os.File
	written int64 // bytes of the log written
	durable int64 // bytes of the log that a sync covers
	stopped bool

	srv  *http.Server
	quit chan struct{}
	done chan struct{}
}

// Serve starts a store on addr with its log in dir, and returns what stops
// it.
func Serve(addr, dir string, fixed bool) (stop func(), err error) {
	s := &Store{fixed: fixed, data: map[string]string{}, quit: make(chan struct{}), done: make(chan struct{})}
	s.synced = sync.NewCond(&s.mu)
	if err := s.open(filepath.Join(dir, "log")); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		s.log.Close()
		return nil, err
	}
	s.srv = &http.Server{Handler: s}
	go s.srv.Serve(l)
	go s.syncLoop()
	return s.stop, nil
}

// open reads the log at path back into the store, cuts off a record torn
// by a crash (a last line without its newline), and opens the log to
// append to it.
func (s *Store) open(path string) error {
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	whole := b[:bytes.LastIndexByte(b, '\n')+1]
	for _, line := range strings.Split(string(whole), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			s.data[k] = v
		}
	}
	if len(whole) < len(b) {
		if err := os.Truncate(path, int64(len(whole))); err != nil {
			return err
		}
	}
	s.log, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	s.written, s.durable = int64(len(whole)), int64(len(whole))
	if err != nil {
		return err
	}
	// A log just created is in its directory for good once the directory
	// is synced: else a crash may lose the file, and every record with it.
	return syncDir(filepath.Dir(path))
}

// syncDir syncs the directory dir: the files created in it, renamed into it
// or removed from it are durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// ServeHTTP serves GET /key and PUT /key (the value in the body).
func (s *Store) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := strings.TrimPrefix(r.URL.Path, "/")
	switch r.Method {
	case http.MethodGet:
		s.mu.Lock()
		v, ok := s.data[key]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, v)
	case http.MethodPut:
		body, err := io.ReadAll(r.Body)
		if err != nil || strings.ContainsAny(key, "=\n") || bytes.IndexByte(body, '\n') >= 0 {
			http.Error(w, "bad record", http.StatusBadRequest)
			return
		}
		if err := s.put(key, string(body)); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		http.Error(w, "GET or PUT", http.StatusMethodNotAllowed)
	}
}

// put appends the record and, in the fixed twin, waits for a sync to
// cover it.
func (s *Store) put(key, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := key + "=" + value + "\n"
	if _, err := s.log.Write([]byte(rec)); err != nil {
		return err
	}
	s.written += int64(len(rec))
	s.data[key] = value
	if !s.fixed {
		return nil // the bug: acknowledged before it is durable
	}
	for end := s.written; s.durable < end; s.synced.Wait() {
		if s.stopped {
			return errors.New("stopped before the record was synced")
		}
	}
	return nil
}

// syncLoop syncs the log every SyncEvery, for the records written since
// the last sync.
func (s *Store) syncLoop() {
	defer close(s.done)
	t := time.NewTicker(SyncEvery)
	defer t.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-t.C:
		}
		s.mu.Lock()
		end, durable := s.written, s.durable
		s.mu.Unlock()
		if end == durable {
			continue
		}
		if err := s.log.Sync(); err != nil {
			continue
		}
		s.mu.Lock()
		s.durable = max(s.durable, end)
		s.synced.Broadcast()
		s.mu.Unlock()
	}
}

// stop stops the server and the sync loop, and closes the log.
func (s *Store) stop() {
	s.srv.Close()
	close(s.quit)
	<-s.done
	s.mu.Lock()
	s.stopped = true
	s.synced.Broadcast()
	s.mu.Unlock()
	s.log.Close()
}
