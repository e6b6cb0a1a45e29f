// Package kvlog is a key-value store over HTTP that keeps its data in an
// append-only log file, written in plain Go (net/http, os files, no import
// of the tool), with a real durability bug and its fixed twin.
//
// A PUT appends "key=value\n" to the log; a loop syncs the log every few
// milliseconds (a group commit: one fsync for the writes of many
// requests). The buggy store acknowledges a PUT as soon as its record is
// written, before the loop has synced it: a power failure between the two
// loses a write the client was told had succeeded. The fixed twin answers
// only once a sync covers the record. On start, the store reads the log
// back, cuts off a record the crash tore (a last line without its
// newline), and syncs the log's directory, so that a log it has just
// created is not lost with the directory's unsynced entries (which
// -dst.faults=disk.lost-dirent=p makes a crash undo).
//
// Nothing shows the bug without a crash; under
//
//	go tool dstreplay test -wrap -dst.faults=node.crash=0.05:100ms ./examples/kvlog -run TestBuggy
//
// the test's store is a node of a cluster (package sched/cluster), its
// HTTP server's goroutines and its file writes run on the scheduler, and
// the node crashes at its writes and syncs with probability 0.05, drawn
// from the entropy, losing what was not synced, and restarts after up to
// 100ms. The scheduler finds the crash that loses an acknowledged write,
// names it in its report, and saves a trace that replays it.
package kvlog
