// Package simdisk is the file system's faults inside a run: writes that
// fail with EIO or stop short at ENOSPC, syncs that fail or take a while,
// drawn from the run's entropy, over Go's own file system. Outside a run,
// and inside one while no fault is given a probability, every function is
// the os function or method it stands for, and costs a check.
//
// Code rewritten by dstreplay test calls this package in place of
// (*os.File).Write, WriteString, WriteAt and Sync, and of os.WriteFile,
// where it calls them directly; code written for the tool may call it by
// hand. There the build's package os also has the hooks dstreplay test
// adds, which hand every (*os.File).Write, WriteAt and Sync over to this
// package, so that writes through an interface (a bufio.Writer over a
// file, fmt.Fprintf, io.Copy) and those of code the rewrite does not carry
// over meet the faults too, and an os.Create or O_TRUNC open records what
// the file held first. Without the hooks (a test written for the tool, run
// by go test), a write that does not call this package reaches the file as
// written, without faults, and Crash knows nothing of it.
//
// The faults, each off unless the test gives it a probability
// (schedtest.Options.Faults, or -dst.faults on the command line), and
// never on the standard streams (os.Stdin, os.Stdout, os.Stderr):
//
//   - FaultEIO: a write or a sync fails with EIO, having written nothing.
//   - FaultENOSPC: a write writes part of what it was given, drawn, and
//     fails with ENOSPC, as a file system that fills up does.
//   - FaultSlowSync: a sync takes up to the fault's bound (default
//     DefaultSlowSync) on the virtual clock before it syncs.
//
// Crash is a power failure of the files under a directory, for a test
// written for the tool, and for a node of sched/cluster that crashes: each
// file the run wrote through this package goes back to what it held at its
// last Sync, with a drawn part of what was appended since (a torn write),
// so that a store that acknowledges before it syncs loses what it
// acknowledged. What was written stays on the real file system, which
// stands for the disk's cache: files are not simulated. With the hooks and
// FaultLostDirent, a crash also undoes what was created, renamed or
// removed (files; directories, by Mkdir, MkdirAll or MkdirTemp; trees, by
// RemoveAll) in a directory that was not synced since; without them,
// directories stay as they are.
//
// In a traced run, each regular file written is an object named by its path
// (one for every handle of the file), and each write (its offset and
// bytes), sync (what became durable, and how long it took) and crash (what
// the file kept, and what it lost) an I/O event on it, which dstreplay's
// stepper lists and finds (/Write, /Sync, /Crash).
package simdisk
