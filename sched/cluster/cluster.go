package cluster

import (
	"errors"
	"fmt"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/simdisk"
	"github.com/dstgo/dst/sched/simnet"
	"github.com/dstgo/dst/vtime"
)

// FaultCrash is the crash of a node, drawn at each of its crash points
// (before each write to a connection or a file, and each sync) when the
// test gives it a probability (schedtest.Options.Faults, -dst.faults): the
// node crashes there, and restarts after a downtime drawn up to the
// fault's bound (default DefaultDowntime).
const FaultCrash = "node.crash"

// DefaultDowntime bounds how long a node that FaultCrash crashed stays
// down, when the test gives no bound.
const DefaultDowntime = time.Second

var downtimeKey = entropy.KeyOf("cluster.downtime")

// StartFunc starts a node's service on its data directory: it starts the
// service's goroutines (a server on its listener, a background loop) and
// returns once the node serves, with what stops them, or an error. Inside
// a run it is called in a goroutine of the node's own, from which every
// goroutine it starts descends.
type StartFunc func(dir string) (stop func(), err error)

// Cluster is a set of nodes of a service in one process: each its own
// goroutines, data directory and node of the simulated network, started,
// crashed and restarted by the test or by FaultCrash. Use one cluster per
// run. Its methods are for the test's goroutines; a node's goroutines may
// call its Crash.
//
// Its state and its nodes' are read and written by the run's goroutines,
// one at a time, with no lock: a lock would order every goroutine that
// writes to the network or the disk after every other for the race
// detector, and hide the races of the code under test. The functions that
// touch it are norace.
type Cluster struct {
	nodes  []*Node
	closed bool
	hooked bool // the run's crash points draw FaultCrash
}

// Node is one node of a cluster.
type Node struct {
	c       *Cluster
	name    string
	dir     string
	start   StartFunc
	stop    func()
	root    *engine.G // the goroutine that started the node's current life
	down    bool
	booting bool // its StartFunc runs: no crash point of its crashes it
	crashes int
}

// New returns an empty cluster.
func New() *Cluster { return &Cluster{} }

// Add starts a node named name, a name of the simulated network's (see
// simnet.Node), with its data under dir: start runs, in a goroutine of the
// node's inside a run, and Add returns once it has.
//
//go:norace
func (c *Cluster) Add(name, dir string, start StartFunc) (*Node, error) {
	for _, n := range c.nodes {
		if n.name == name {
			return nil, fmt.Errorf("cluster: a node named %q was added already", name)
		}
	}
	n := &Node{c: c, name: name, dir: dir, start: start, down: true}
	c.nodes = append(c.nodes, n)
	if err := n.boot(); err != nil {
		return nil, fmt.Errorf("cluster: node %s: %w", name, err)
	}
	return n, nil
}

// Name is the node's name.
func (n *Node) Name() string { return n.name }

// Dir is the node's data directory.
func (n *Node) Dir() string { return n.dir }

// Up reports whether the node runs: started, and not crashed since.
//
//go:norace
func (n *Node) Up() bool {
	return !n.down
}

// Crashes is how many times the node crashed.
//
//go:norace
func (n *Node) Crashes() int {
	return n.crashes
}

// boot runs the node's StartFunc: in a goroutine of the node's, the root
// of its new life, inside a run.
//
//go:norace
func (n *Node) boot() error {
	c := n.c
	g := engine.Current()
	if g == nil {
		stop, err := n.start(n.dir)
		n.stop, n.down = stop, err != nil
		return err
	}
	if !c.hooked {
		c.hooked = true
		g.OnCrashPoint(c.crashPoint)
	}
	n.booting = true
	done := chans.Make[error](1)
	sched.Go(func() {
		simnet.Node(n.name)
		n.began(engine.Current())
		stop, err := n.start(n.dir)
		n.started(stop, err)
		done.Send(err)
	})
	return done.Recv()
}

// began records that root starts the node's new life.
//
//go:norace
func (n *Node) began(root *engine.G) { n.root = root }

// started records that the node's StartFunc returned.
//
//go:norace
func (n *Node) started(stop func(), err error) {
	n.stop, n.down, n.booting = stop, err != nil, false
}

// member reports whether g belongs to the life of a node that root
// started: it is root, or root started it, or one of those did.
func member(g, root *engine.G) bool {
	for ; g != nil; g = g.Parent() {
		if g == root {
			return true
		}
	}
	return false
}

// Crash crashes the node, as a power failure does its machine: its
// goroutines end where they are (engine's G.Crash: no deferred call runs),
// its listeners close and its connections close as the kernel closes a
// dead process's sockets, and the files under its directory lose what
// was not synced (simdisk.Crash). It stays down until Restart. What its
// goroutines held stays held: state the nodes share in the process (a
// package variable, http.DefaultTransport) may block the others; give
// each node its own. A crash of a node that is down does nothing.
// Outside a run it is an error: a process cannot crash its own goroutines.
func (n *Node) Crash() error { return n.crash(0) }

// crash is Crash, and, when downtime is not 0, a restart after it. When
// the calling goroutine is the node's, it ends too, last.
//
//go:norace
func (n *Node) crash(downtime time.Duration) error {
	g := engine.Current()
	if g == nil {
		return fmt.Errorf("cluster: crash of node %s outside a run: only a run can end a node's goroutines", n.name)
	}
	if n.down || n.booting {
		return nil
	}
	n.down = true
	n.crashes++
	root := n.root
	self := member(g, root)
	what := fmt.Sprintf("cluster: node %s crashes", n.name)
	if downtime > 0 {
		what += fmt.Sprintf(", and restarts after %v", downtime)
	}
	g.Log(what)
	err := simnet.CrashNode(n.name, func() {
		g.Crash(func(h *engine.G) bool { return h != g && member(h, root) })
	})
	if n.dir != "" {
		if derr := simdisk.Crash(n.dir); derr != nil {
			err = errors.Join(err, derr)
		}
	}
	if downtime > 0 {
		sched.Go(func() {
			vtime.Sleep(downtime)
			if rerr := n.Restart(); rerr != nil {
				engine.Current().Log(rerr.Error())
			}
		})
	}
	if self {
		g.Crash(func(h *engine.G) bool { return h == g }) // does not return
	}
	return err
}

// Restart starts the node again on its directory, after a crash: its
// StartFunc runs as at Add. It does nothing when the node is up, or the
// cluster closed.
//
//go:norace
func (n *Node) Restart() error {
	c := n.c
	if !n.down || c.closed {
		return nil
	}
	if err := n.boot(); err != nil {
		return fmt.Errorf("cluster: restart of node %s: %w", n.name, err)
	}
	return nil
}

// crashPoint is the run's crash point (engine's G.CrashPoint): at a
// point of a node's goroutine, FaultCrash is drawn, and when it fires the
// node crashes, to restart after a drawn downtime.
//
//go:norace
func (c *Cluster) crashPoint(g *engine.G) {
	var n *Node
	if !c.closed {
		for _, m := range c.nodes {
			if !m.down && !m.booting && member(g, m.root) {
				n = m
				break
			}
		}
	}
	if n == nil || !sched.Fault(FaultCrash) {
		return
	}
	d := time.Duration(g.Source().At(downtimeKey).IntRange(1, int(g.FaultBound(FaultCrash, DefaultDowntime))))
	if err := n.crash(d); err != nil {
		g.Log(err.Error())
	}
}

// Close stops the cluster: every node that is up stops (its StartFunc's
// stop), and none restarts. What a node leaves running after its stop is
// the run's to find, as a leak.
//
//go:norace
func (c *Cluster) Close() {
	c.closed = true
	for _, n := range c.nodes {
		up := !n.down
		n.down = true
		if up && n.stop != nil {
			n.stop()
		}
	}
}
