// Package dedup is a deduplicating backup store, the "simple example" of
// Rubrik's post on fuzz testing, with the two bugs the post describes, a
// version that avoids them, and a universe of fake dependencies
// (universe.go) that injects the failures that trigger them. Its tests are
// the fuzz test the post recommends: random inputs, injected faults and
// concurrency, a correctness checker, a white-box invariant, and a
// progress checker, explored by the scheduler (package sched).
//
// # The system
//
// A backup job pulls a version of an object from a data source (Source)
// and hashes its content with SHA-256. An index database (DB) maps the hash,
// plus a nonce that tells apart rows for the same content, to the file that
// holds the content (Files) and to a list of references: the ids of the
// backups that share it. The job looks the hash up; if a live row exists it
// adds its reference to that row, else it stores the content in a new file
// and inserts a new row referenced by itself. Deleting a backup removes its
// reference; the garbage collector deletes the rows whose reference list is
// empty, with their files. A row whose list has become empty takes no new
// reference. A restore reads a backup's row and returns its file's content.
//
// # The bugs (NewBuggy)
//
// The buggy backup job follows the post's pseudocode, and every call of the
// universe can fail, in particular with a timeout after which the server
// may or may not have applied the write:
//
//  1. Leaked reference. If adding the reference to an existing row fails,
//     for any reason, the job falls back to inserting a new row. When the
//     failure was a timeout and the reference was added all the same, the
//     backup is referenced twice: its deletion removes one reference, the
//     other keeps the old row alive forever (a space leak).
//  2. Deletion of live content. If inserting the new row fails, the job
//     deletes the row, with retries until it is gone, and its file, and
//     fails. When the failure was a timeout and the row was inserted all
//     the same, another backup of the same content may have found the row,
//     added its reference and reported success in the meantime: its
//     content is gone, and its restore fails for good (data loss).
//
// # The fix (NewFixed)
//
// The fixed job treats a timeout as "maybe applied" and never acts on the
// assumption that a write failed unless the server said so. Every write is
// keyed by the backup id, so it can be repeated: the reference is the id
// (AddRef of an id already there does nothing), and the nonce of the row a
// backup inserts is its id. A job whose write failed ambiguously returns the
// error and is retried, and the retry re-reads the index before writing:
// if a row already holds its id, the earlier attempt's write was applied and
// the backup is done. A reference is added elsewhere, or a row inserted,
// only after the index says that no row holds the id. The fixed job never
// deletes a row; only the garbage collector does, and it deletes a row only
// if its reference list is empty, checked in the same transaction.
//
// Both versions share the garbage collector, Delete and Restore.
package dedup

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dstgo/dst/vtime"
)

// ErrLost is returned by Restore when the backup's content is gone: its row,
// its reference or its file. No retry can bring it back.
var ErrLost = errors.New("content lost")

// Store is the deduplicating store, over an index and a file store.
type Store struct {
	db    *DB
	files *Files
	fixed bool
}

// NewBuggy returns the store with both bugs of the post.
func NewBuggy(db *DB, files *Files) *Store { return &Store{db: db, files: files} }

// NewFixed returns the store that handles ambiguous failures.
func NewFixed(db *DB, files *Files) *Store { return &Store{db: db, files: files, fixed: true} }

// Snapshot is a successful backup: which version of which object it holds,
// and the row of the index that holds it.
type Snapshot struct {
	ID      string
	Object  string
	Version int
	Row     RowKey
}

// BackupJob backs up one object under the backup id ID. Its first attempt
// pulls the object's newest version from the source; every later attempt
// backs up that same version.
type BackupJob struct {
	ID     string
	Object string

	pulled  bool
	version int
	data    []byte
}

// Backup runs one attempt of the job. An attempt that fails may be retried.
func (s *Store) Backup(src *Source, j *BackupJob) (Snapshot, error) {
	if !j.pulled {
		v, data, err := src.Pull(j.Object)
		if err != nil {
			return Snapshot{}, fmt.Errorf("backup %s: pull: %w", j.ID, err)
		}
		j.pulled, j.version, j.data = true, v, data
	}
	ingest := s.ingestBuggy
	if s.fixed {
		ingest = s.ingestFixed
	}
	key, err := ingest(j.ID, j.data)
	if err != nil {
		return Snapshot{}, fmt.Errorf("backup %s: %w", j.ID, err)
	}
	return Snapshot{ID: j.ID, Object: j.Object, Version: j.version, Row: key}, nil
}

// fileName is where the content of the row key is stored.
func fileName(key RowKey) string { return fmt.Sprintf("blob-%v-%s", key.Hash, key.Nonce) }

// ingestBuggy stores data for the backup id as the post's pseudocode does,
// and returns the row that references it.
func (s *Store) ingestBuggy(id string, data []byte) (RowKey, error) {
	h := HashOf(data)
	rows, err := s.db.Lookup(h)
	if err != nil {
		return RowKey{}, err
	}
	// Step 4: if the content exists, reference it.
	for _, r := range rows {
		if !r.Live() {
			continue
		}
		if err := s.db.AddRef(r.Key, id); err == nil {
			return r.Key, nil
		}
		// BUG 1: any error, a timeout included, is taken to mean that the
		// reference was not added, and the job falls back to a new row. If
		// the timed-out AddRef was applied, the reference leaks.
		break
	}
	// Step 5: store the content and insert a new row for it.
	key := RowKey{Hash: h, Nonce: id}
	file := fileName(key)
	if err := s.files.Write(file, data); err != nil {
		return RowKey{}, err
	}
	if err := s.db.Insert(key, file, id); err != nil {
		// BUG 2: the row is taken not to exist, and is deleted, with
		// retries, so that it does not leak. If the timed-out Insert was
		// applied, another backup may have referenced the row by now: its
		// content is deleted under it.
		for attempt := 0; ; attempt++ {
			if err := s.db.Delete(key); err == nil || errors.Is(err, ErrNoRow) {
				break
			}
			backoff(attempt)
		}
		_ = s.files.Delete(file) // discard the pulled data
		return RowKey{}, err
	}
	return key, nil
}

// ingestFixed stores data for the backup id, treating a timeout as a write
// that may have been applied, and returns the row that references it.
func (s *Store) ingestFixed(id string, data []byte) (RowKey, error) {
	h := HashOf(data)
	rows, err := s.db.Lookup(h)
	if err != nil {
		return RowKey{}, err
	}
	// An earlier attempt of this backup may have added its reference, or
	// inserted its row, and seen a timeout: the index says whether it did.
	// (No row can lose the id meanwhile: only Delete removes it, and only
	// after the backup has succeeded.)
	for _, r := range rows {
		if slices.Contains(r.Refs, id) {
			return r.Key, nil
		}
	}
	for _, r := range rows {
		if !r.Live() {
			continue
		}
		switch err := s.db.AddRef(r.Key, id); {
		case err == nil:
			return r.Key, nil
		case errors.Is(err, ErrCondemned), errors.Is(err, ErrNoRow):
			continue // a definite no: the reference was not added
		default:
			// Maybe added: falling back to a new row could reference the
			// backup twice. Fail this attempt; the next one re-reads.
			return RowKey{}, err
		}
	}
	key := RowKey{Hash: h, Nonce: id}
	file := fileName(key)
	if err := s.files.Write(file, data); err != nil {
		return RowKey{}, err
	}
	if err := s.db.Insert(key, file, id); err != nil {
		// Maybe inserted, and maybe referenced by another backup already:
		// never delete it here. The next attempt re-reads; an empty row
		// is the garbage collector's to delete.
		return RowKey{}, err
	}
	return key, nil
}

// Delete removes the backup's reference. Once it returns nil, the backup is
// gone; it may be called again after an error.
func (s *Store) Delete(snap Snapshot) error {
	err := s.db.RemoveRef(snap.Row, snap.ID)
	if errors.Is(err, ErrNoRow) {
		return nil // no row, no reference
	}
	if err != nil {
		return fmt.Errorf("delete %s: %w", snap.ID, err)
	}
	return nil
}

// Restore returns the content of the backup. It fails with ErrLost if the
// content is gone.
func (s *Store) Restore(snap Snapshot) ([]byte, error) {
	row, err := s.db.Get(snap.Row)
	switch {
	case errors.Is(err, ErrNoRow):
		return nil, fmt.Errorf("restore %s: row %v: %w", snap.ID, snap.Row, ErrLost)
	case err != nil:
		return nil, fmt.Errorf("restore %s: %w", snap.ID, err)
	case !slices.Contains(row.Refs, snap.ID):
		return nil, fmt.Errorf("restore %s: row %v does not reference it: %w", snap.ID, snap.Row, ErrLost)
	}
	data, err := s.files.Read(row.File)
	switch {
	case errors.Is(err, ErrNoFile):
		return nil, fmt.Errorf("restore %s: file %s: %w", snap.ID, row.File, ErrLost)
	case err != nil:
		return nil, fmt.Errorf("restore %s: %w", snap.ID, err)
	}
	return data, nil
}

// GC runs one pass of the garbage collector: it deletes every row whose
// reference list is empty, and its file. The file goes first: a row whose
// list is empty never takes a reference again, so its file is no longer
// read, and if deleting the row fails, the next pass finds it again. The row
// is deleted only if its list is still empty, checked in the same
// transaction.
func (s *Store) GC() error {
	rows, err := s.db.Empty()
	if err != nil {
		return fmt.Errorf("gc: %w", err)
	}
	var errs []error
	for _, r := range rows {
		if err := s.files.Delete(r.File); err != nil {
			errs = append(errs, err)
			continue
		}
		if _, err := s.db.DeleteIfEmpty(r.Key); err != nil && !errors.Is(err, ErrNoRow) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("gc: %w", err)
	}
	return nil
}

// Backoff is the first pause between two attempts; it doubles with every
// attempt, up to MaxBackoff.
const (
	Backoff    = 50 * time.Millisecond
	MaxBackoff = 2 * time.Second
)

// backoff sleeps before the attempt after attempt (virtual time inside a
// run).
func backoff(attempt int) {
	vtime.Sleep(min(Backoff<<min(attempt, 16), MaxBackoff))
}

// Retry calls f up to attempts times, pausing with exponential backoff
// between attempts, until it returns nil; it returns f's last error.
func Retry(attempts int, f func() error) error {
	var err error
	for attempt := range attempts {
		if attempt > 0 {
			backoff(attempt - 1)
		}
		if err = f(); err == nil {
			return nil
		}
	}
	return err
}
