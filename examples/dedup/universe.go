package dedup

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/vtime"
)

// The universe: fakes of the store's external dependencies (the index
// database, the file store and the data source), with faults injected at
// every call through sched.Fault. Each keeps its state in memory behind a
// sched.Mutex, so that every call is a scheduling point.
//
// A write can fail in two ways:
//
//   - "<op>.error": the server rejects the call; nothing was applied.
//   - "<op>.timeout": the client gives up waiting and reports ErrTimeout,
//     and "<op>.applied" decides whether the server applied the write
//     anyway. The client cannot tell which: this is the ambiguous failure
//     that both bugs of the seed forget.
//
// The fakes settle a timed-out write before the client sees the timeout:
// once a call has returned, re-reading the state tells whether it was
// applied. (Against a real database, where a write may still be in flight
// when the client gives up, the re-read needs a fence, such as a deadline
// the server enforces.)

// Errors of the universe. The fault errors wrap ErrUnavailable and
// ErrTimeout; the others are definite answers from the server.
var (
	// ErrUnavailable is a call that failed without effect.
	ErrUnavailable = errors.New("unavailable")
	// ErrTimeout is a call the client gave up on: the server may or may
	// not have applied it.
	ErrTimeout = errors.New("timeout")
	// ErrNoRow is returned for a row that does not exist.
	ErrNoRow = errors.New("no such row")
	// ErrCondemned is returned by AddRef for a row whose reference list has
	// become empty: the garbage collector owns it, no reference may be
	// added any more.
	ErrCondemned = errors.New("row is condemned: its reference list is empty")
	// ErrExists is returned by Insert for a key that is taken.
	ErrExists = errors.New("row exists")
	// ErrNoFile is returned for a file that does not exist.
	ErrNoFile = errors.New("no such file")
)

// ClientTimeout is how long a client of the universe waits for a reply
// before it reports ErrTimeout (virtual time: see package vtime).
const ClientTimeout = time.Second

// Faults are the probabilities of the universe's named faults, for
// schedtest.Options.Faults: plain errors, timeouts, and whether a timed-out
// write was applied anyway.
func Faults() map[string]float64 {
	return map[string]float64{
		"source.pull.error": 0.05,

		"db.lookup.error":      0.05,
		"db.get.error":         0.05,
		"db.scan.error":        0.05,
		"db.addref.error":      0.05,
		"db.addref.timeout":    0.2,
		"db.addref.applied":    0.5,
		"db.insert.error":      0.05,
		"db.insert.timeout":    0.2,
		"db.insert.applied":    0.5,
		"db.removeref.error":   0.05,
		"db.removeref.timeout": 0.1,
		"db.removeref.applied": 0.5,
		"db.delete.error":      0.05,
		"db.delete.timeout":    0.1,
		"db.delete.applied":    0.5,

		"files.write.error":   0.05,
		"files.write.timeout": 0.1,
		"files.write.applied": 0.5,
		"files.read.error":    0.05,
		"files.delete.error":  0.05,
	}
}

// call runs apply with the faults of the write named op (".error",
// ".timeout", ".applied"); lock and unlock guard the server's state.
func call(op string, lock, unlock func(), apply func() error) error {
	if sched.Fault(op + ".error") {
		return fmt.Errorf("%s: %w", op, ErrUnavailable)
	}
	if sched.Fault(op + ".timeout") {
		if sched.Fault(op + ".applied") {
			lock()
			_ = apply() // the reply, success or not, is lost
			unlock()
		}
		vtime.Sleep(ClientTimeout) // the client waits for a reply that never comes
		return fmt.Errorf("%s: %w", op, ErrTimeout)
	}
	lock()
	defer unlock()
	return apply()
}

// read runs apply with the fault of the read named op (".error").
func read(op string, lock, unlock func(), apply func() error) error {
	if sched.Fault(op + ".error") {
		return fmt.Errorf("%s: %w", op, ErrUnavailable)
	}
	lock()
	defer unlock()
	return apply()
}

// Hash is the SHA-256 of some content.
type Hash [sha256.Size]byte

// HashOf returns the hash of data.
func HashOf(data []byte) Hash { return sha256.Sum256(data) }

// String is the hash's first bytes in hex, enough for reports.
func (h Hash) String() string { return fmt.Sprintf("%x", h[:4]) }

// RowKey identifies a row of the index: the hash of its content and a
// nonce, chosen by the client that inserts the row, that tells apart rows
// for the same content.
type RowKey struct {
	Hash  Hash
	Nonce string
}

func (k RowKey) String() string { return fmt.Sprintf("%v/%s", k.Hash, k.Nonce) }

// Row is one entry of the index: where the content of a hash is stored,
// and which backups reference it.
type Row struct {
	Key  RowKey
	File string
	Refs []string // backup ids, each at most once
}

// Live reports whether references may still be added to the row: once its
// reference list is empty, it belongs to the garbage collector.
func (r Row) Live() bool { return len(r.Refs) > 0 }

func (r Row) clone() Row {
	r.Refs = slices.Clone(r.Refs)
	return r
}

// DB is the fake index database: rows keyed by hash and nonce.
type DB struct {
	mu   sched.Mutex
	rows map[RowKey]*Row
}

// NewDB returns an empty index.
func NewDB() *DB { return &DB{rows: map[RowKey]*Row{}} }

// sorted returns copies of the rows for which keep is true, in key order.
// The caller holds db.mu.
func (db *DB) sorted(keep func(*Row) bool) []Row {
	var rows []Row
	for _, r := range db.rows {
		if keep(r) {
			rows = append(rows, r.clone())
		}
	}
	slices.SortFunc(rows, func(a, b Row) int {
		if c := bytes.Compare(a.Key.Hash[:], b.Key.Hash[:]); c != 0 {
			return c
		}
		return strings.Compare(a.Key.Nonce, b.Key.Nonce)
	})
	return rows
}

// Lookup returns the rows for hash, in nonce order.
func (db *DB) Lookup(h Hash) ([]Row, error) {
	var rows []Row
	err := read("db.lookup", db.mu.Lock, db.mu.Unlock, func() error {
		rows = db.sorted(func(r *Row) bool { return r.Key.Hash == h })
		return nil
	})
	return rows, err
}

// Get returns one row.
func (db *DB) Get(key RowKey) (Row, error) {
	var row Row
	err := read("db.get", db.mu.Lock, db.mu.Unlock, func() error {
		r, ok := db.rows[key]
		if !ok {
			return fmt.Errorf("db get %v: %w", key, ErrNoRow)
		}
		row = r.clone()
		return nil
	})
	return row, err
}

// Empty returns the rows whose reference list is empty, for the garbage
// collector.
func (db *DB) Empty() ([]Row, error) {
	var rows []Row
	err := read("db.scan", db.mu.Lock, db.mu.Unlock, func() error {
		rows = db.sorted(func(r *Row) bool { return !r.Live() })
		return nil
	})
	return rows, err
}

// Insert adds the row key, pointing to file and referenced by backup. It
// fails with ErrExists if the key is taken.
func (db *DB) Insert(key RowKey, file, backup string) error {
	return call("db.insert", db.mu.Lock, db.mu.Unlock, func() error {
		if _, ok := db.rows[key]; ok {
			return fmt.Errorf("db insert %v: %w", key, ErrExists)
		}
		db.rows[key] = &Row{Key: key, File: file, Refs: []string{backup}}
		return nil
	})
}

// AddRef adds backup to the row's references; it does nothing if backup is
// there already. It fails with ErrCondemned once the list has become empty.
func (db *DB) AddRef(key RowKey, backup string) error {
	return call("db.addref", db.mu.Lock, db.mu.Unlock, func() error {
		r, ok := db.rows[key]
		switch {
		case !ok:
			return fmt.Errorf("db addref %v: %w", key, ErrNoRow)
		case !r.Live():
			return fmt.Errorf("db addref %v: %w", key, ErrCondemned)
		case !slices.Contains(r.Refs, backup):
			r.Refs = append(r.Refs, backup)
		}
		return nil
	})
}

// RemoveRef removes backup from the row's references, if it is there.
func (db *DB) RemoveRef(key RowKey, backup string) error {
	return call("db.removeref", db.mu.Lock, db.mu.Unlock, func() error {
		r, ok := db.rows[key]
		if !ok {
			return fmt.Errorf("db removeref %v: %w", key, ErrNoRow)
		}
		r.Refs = slices.DeleteFunc(r.Refs, func(id string) bool { return id == backup })
		return nil
	})
}

// Delete deletes a row, whatever its references.
func (db *DB) Delete(key RowKey) error {
	return call("db.delete", db.mu.Lock, db.mu.Unlock, func() error {
		if _, ok := db.rows[key]; !ok {
			return fmt.Errorf("db delete %v: %w", key, ErrNoRow)
		}
		delete(db.rows, key)
		return nil
	})
}

// DeleteIfEmpty deletes a row if its reference list is empty, checked in
// the same transaction, and reports whether it did.
func (db *DB) DeleteIfEmpty(key RowKey) (bool, error) {
	deleted := false
	err := call("db.delete", db.mu.Lock, db.mu.Unlock, func() error {
		r, ok := db.rows[key]
		if !ok {
			return fmt.Errorf("db delete %v: %w", key, ErrNoRow)
		}
		if !r.Live() {
			delete(db.rows, key)
			deleted = true
		}
		return nil
	})
	return deleted, err
}

// Rows returns every row, in key order, without faults: the white-box view
// of the index, for checkers.
func (db *DB) Rows() []Row {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.sorted(func(*Row) bool { return true })
}

// Files is the fake file store: contents by name.
type Files struct {
	mu    sched.Mutex
	files map[string][]byte
}

// NewFiles returns an empty file store.
func NewFiles() *Files { return &Files{files: map[string][]byte{}} }

// Write stores data as the file name, replacing it if it exists.
func (f *Files) Write(name string, data []byte) error {
	return call("files.write", f.mu.Lock, f.mu.Unlock, func() error {
		f.files[name] = slices.Clone(data)
		return nil
	})
}

// Read returns the contents of the file name.
func (f *Files) Read(name string) ([]byte, error) {
	var data []byte
	err := read("files.read", f.mu.Lock, f.mu.Unlock, func() error {
		d, ok := f.files[name]
		if !ok {
			return fmt.Errorf("files read %s: %w", name, ErrNoFile)
		}
		data = slices.Clone(d)
		return nil
	})
	return data, err
}

// Delete deletes the file name; deleting a missing file is not an error.
func (f *Files) Delete(name string) error {
	return read("files.delete", f.mu.Lock, f.mu.Unlock, func() error {
		delete(f.files, name)
		return nil
	})
}

// Source is the fake data source the backups pull from. It keeps every
// version of every object it ever held, so it is also the source of truth
// that restores are checked against.
type Source struct {
	mu       sched.Mutex
	versions map[string][][]byte
}

// NewSource returns a source without objects.
func NewSource() *Source { return &Source{versions: map[string][][]byte{}} }

// Write makes data the newest version of object and returns its number.
func (s *Source) Write(object string, data []byte) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.versions[object] = append(s.versions[object], slices.Clone(data))
	return len(s.versions[object]) - 1
}

// Pull returns the newest version of object and its number.
func (s *Source) Pull(object string) (int, []byte, error) {
	var v int
	var data []byte
	err := read("source.pull", s.mu.Lock, s.mu.Unlock, func() error {
		vs := s.versions[object]
		if len(vs) == 0 {
			return fmt.Errorf("source: no object %q", object)
		}
		v, data = len(vs)-1, slices.Clone(vs[len(vs)-1])
		return nil
	})
	return v, data, err
}

// Version returns version v of object, without faults: the truth.
func (s *Source) Version(object string, v int) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	vs := s.versions[object]
	if v < 0 || v >= len(vs) {
		return nil, false
	}
	return slices.Clone(vs[v]), true
}
