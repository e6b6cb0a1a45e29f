// Package agent is the thread worker of a small coding agent, after the
// ThreadWorker of Sourcegraph's Amp and the bugs Oskar Wickström's
// lightweight deterministic simulation testing found in it ("Finding Bugs in
// a Coding Agent with Lightweight DST", 2025).
//
// A Worker owns a thread: the conversation between the user and the model,
// a list of messages. The user sends messages (Handle), cancels the work in
// progress (Cancel), resumes it after a failure or a cancellation (Resume),
// and approves or rejects the tool calls that need approval (Approve,
// Reject). For each user message the worker runs a turn: it streams a
// response from the inference service (a fake one, Inference), commits it
// as an assistant message, runs the tools it asks for (fake ones, Tool), some
// only once the user approves, commits their results as the next user
// message, and goes on with inference until the model stops asking for
// tools, a tool call is rejected, the turn is cancelled, or inference fails.
//
// Two rules make a thread valid (CheckToolPairs): every tool_use block of an
// assistant message is answered by exactly one tool_result block in the next
// message; and the worker must become idle, no inference in flight and every
// tool call in a terminal state (done, failed, cancelled or rejected), once
// the user stops acting and approves what is pending.
//
// The worker has two bugs of the kinds the Amp fuzzer found, each switched
// on by a field of Bugs; the zero Config is the fixed worker:
//
//   - Bugs.EagerTools: tools start as soon as their tool_use block has been
//     streamed, and each call appends its own result to the thread when it
//     ends. A tool that ends before the stream does puts its result before
//     the assistant message holding its tool_use; a stream that fails or is
//     cancelled after a tool started leaves a result that answers nothing.
//     The thread is corrupted. The fix: start the tools once the assistant
//     message is committed, and commit all of their results as one message
//     once every call has ended.
//   - Bugs.StuckApproval: a call waiting for approval waits for a decision
//     only, trusting Cancel to deliver one. But Cancel settles a call that
//     has not reached the approval prompt yet as cancelled without waking
//     anything, and a call that reaches the prompt already cancelled then
//     waits forever: Approve refuses it (it is not pending), the turn waits
//     for it, and the thread never becomes idle (an infinite spinner). It
//     takes a cancellation, or a user message, in the short window between
//     the commit of the assistant message and the start of the call's
//     goroutine. The fix: a call that finds itself settled does not wait,
//     and the wait also ends when the turn's context is cancelled.
//
// The worker is written with the scheduler's shims (sched.Go, sched.Mutex,
// sched.WaitGroup, chans, vtime, sched/context): in production they are the
// standard library's; under schedtest.Test every synchronization is a
// scheduling point and time is virtual, so a test explores the
// interleavings of user actions, streamed chunks, tool calls and faults.
package agent

import (
	"errors"
	"fmt"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/context"
)

// Status is the state of a tool call.
type Status int

// The states of a tool call. Done, Failed, Cancelled and Rejected are
// terminal.
const (
	Queued           Status = iota // streamed, not started
	AwaitingApproval               // waiting for the user to approve or reject it
	Running                        // running the tool
	Done                           // the tool succeeded
	Failed                         // the tool failed
	Cancelled                      // the turn was cancelled before the call ended
	Rejected                       // the user rejected the call
)

var statusNames = [...]string{"queued", "awaiting approval", "running", "done", "failed", "cancelled", "rejected"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Terminal reports whether s is a state a tool call ends in.
func (s Status) Terminal() bool { return s >= Done }

// Bugs switches on the worker's bugs; see the package documentation.
type Bugs struct {
	EagerTools    bool // start tools while streaming; results split across messages
	StuckApproval bool // a call cancelled before its approval prompt waits forever
}

// Config configures a Worker.
type Config struct {
	Inference *Inference
	Tools     []Tool
	Bugs      Bugs // the zero value is the fixed worker
}

// ErrNotPending is returned by Approve and Reject for a call that is not
// waiting for approval.
var ErrNotPending = errors.New("agent: tool call is not awaiting approval")

// ToolCall is one call of a tool, from its tool_use block to its result.
type ToolCall struct {
	ID, Tool, Input string
	Status          Status
	Output          string

	needsApproval bool
	decision      *chans.Chan[bool] // the user's decision, or Cancel's; buffered
	exited        bool              // the call's goroutine has returned
}

// turn is the work done for one user message: inference, tools, inference...
type turn struct {
	ctx       context.Context
	cancel    context.CancelFunc
	streaming bool        // an inference request is in flight
	calls     []*ToolCall // the calls of the current round
}

// Worker runs the turns of one thread. Its methods are safe for concurrent
// use and return without waiting for the work they start.
type Worker struct {
	cfg   Config
	tools map[string]Tool

	mu      sched.Mutex
	thread  []Message
	calls   []*ToolCall // every call ever made, in order
	turn    *turn       // nil when no turn is running
	queued  []string    // user messages waiting for the running turn to end
	lastErr error       // why the last turn failed, if it did
}

// New returns an idle worker with an empty thread.
func New(cfg Config) *Worker {
	w := &Worker{cfg: cfg, tools: map[string]Tool{}}
	for _, t := range cfg.Tools {
		w.tools[t.Name] = t
	}
	return w
}

// Handle posts a user message. When a turn is running, it is cancelled and
// the message is appended once the turn has ended; then a new turn starts.
func (w *Worker) Handle(text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.turn != nil {
		w.queued = append(w.queued, text)
		w.cancelLocked()
		return
	}
	w.thread = append(w.thread, Message{Role: User, Blocks: []Block{{Kind: Text, Text: text}}})
	w.startLocked()
}

// Cancel cancels the running turn, if any: inference stops, running tools
// are cancelled, and calls that have not started or wait for approval are
// settled as cancelled.
func (w *Worker) Cancel() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cancelLocked()
}

// Resume starts a turn when none is running and the thread ends with a user
// message that has no answer yet (after a failure or a cancellation).
func (w *Worker) Resume() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.turn == nil && len(w.thread) > 0 && w.thread[len(w.thread)-1].Role == User {
		w.startLocked()
	}
}

// Approve lets a call waiting for approval run.
func (w *Worker) Approve(id string) error { return w.decide(id, true) }

// Reject refuses a call waiting for approval. The turn then ends after the
// round's results are committed: the model is not asked again until the
// user says something.
func (w *Worker) Reject(id string) error { return w.decide(id, false) }

func (w *Worker) decide(id string, approve bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.calls {
		if c.ID != id {
			continue
		}
		if c.Status != AwaitingApproval {
			return fmt.Errorf("%w: %s is %s", ErrNotPending, id, c.Status)
		}
		c.Status = Running
		if !approve {
			c.Status = Rejected
		}
		c.decision.Send(approve) // buffered, and the only decision the call gets
		return nil
	}
	return fmt.Errorf("agent: no tool call %s", id)
}

// PendingApprovals returns the IDs of the calls waiting for approval.
func (w *Worker) PendingApprovals() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var ids []string
	for _, c := range w.calls {
		if c.Status == AwaitingApproval {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// Snapshot is a copy of a worker's state.
type Snapshot struct {
	Thread    []Message
	Calls     []ToolCall
	Running   bool     // a turn is running
	Streaming bool     // an inference request is in flight
	Unsettled []string // calls whose goroutine has not returned
	Queued    []string // user messages not yet in the thread
	LastErr   error
}

// Idle reports whether nothing is in flight: no turn, no inference, and
// every tool call settled in a terminal state.
func (s Snapshot) Idle() bool {
	if s.Running || s.Streaming || len(s.Unsettled) > 0 || len(s.Queued) > 0 {
		return false
	}
	for _, c := range s.Calls {
		if !c.Status.Terminal() {
			return false
		}
	}
	return true
}

// Snapshot returns a copy of the worker's state.
func (w *Worker) Snapshot() Snapshot {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := Snapshot{Running: w.turn != nil, LastErr: w.lastErr, Queued: append([]string(nil), w.queued...)}
	s.Streaming = w.turn != nil && w.turn.streaming
	for _, m := range w.thread {
		s.Thread = append(s.Thread, Message{Role: m.Role, Blocks: append([]Block(nil), m.Blocks...)})
	}
	for _, c := range w.calls {
		s.Calls = append(s.Calls, *c)
		if !c.exited {
			s.Unsettled = append(s.Unsettled, fmt.Sprintf("%s (%s, %s)", c.ID, c.Tool, c.Status))
		}
	}
	return s
}

// startLocked starts a turn. w.mu is held and no turn is running.
func (w *Worker) startLocked() {
	ctx, cancel := context.WithCancel(context.Background())
	t := &turn{ctx: ctx, cancel: cancel}
	w.turn = t
	w.lastErr = nil
	sched.Go(func() { w.run(t) })
}

// cancelLocked cancels the running turn. w.mu is held.
func (w *Worker) cancelLocked() {
	t := w.turn
	if t == nil {
		return
	}
	t.cancel()
	for _, c := range t.calls {
		switch c.Status {
		case Queued:
			// Not started: settle it now, so the user sees it cancelled.
			c.Status = Cancelled
		case AwaitingApproval:
			// Withdraw the prompt and wake the call.
			c.Status = Cancelled
			c.decision.Send(false)
		}
	}
}

// run runs turn t until it ends, then starts the next one if user messages
// arrived meanwhile.
func (w *Worker) run(t *turn) {
	defer w.end(t)
	for {
		var wg sched.WaitGroup
		msg, err := w.stream(t, &wg)
		if err != nil {
			wg.Wait() // the calls the buggy worker started while streaming
			w.fail(t, err)
			return
		}
		w.mu.Lock()
		w.thread = append(w.thread, msg)
		if !w.cfg.Bugs.EagerTools {
			// Register the calls with the message that asks for them.
			for _, b := range msg.Blocks {
				if b.Kind == ToolUse {
					w.newCallLocked(t, b)
				}
			}
		}
		calls := t.calls
		w.mu.Unlock()
		if !w.cfg.Bugs.EagerTools {
			for _, c := range calls {
				w.start(t, c, &wg)
			}
		}
		wg.Wait()
		if len(calls) == 0 {
			return
		}
		if !w.cfg.Bugs.EagerTools {
			w.commitResults(calls)
		}
		if t.ctx.Err() != nil || w.anyRejected(calls) {
			return
		}
	}
}

// stream runs one inference request and returns the assistant message it
// streamed.
func (w *Worker) stream(t *turn, wg *sched.WaitGroup) (Message, error) {
	w.mu.Lock()
	if err := t.ctx.Err(); err != nil {
		w.mu.Unlock()
		return Message{}, err
	}
	snapshot := append([]Message(nil), w.thread...)
	t.streaming = true
	t.calls = nil
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		t.streaming = false
		w.mu.Unlock()
	}()

	chunks := w.cfg.Inference.Stream(t.ctx, snapshot)
	msg := Message{Role: Assistant}
	for {
		var c Chunk
		var ok bool
		if chans.Select(chunks.CaseRecvOK(&c, &ok), context.Done(t.ctx).CaseRecv(nil)) == 1 {
			return msg, t.ctx.Err()
		}
		if !ok {
			return msg, errors.New("agent: inference stream closed early")
		}
		switch c.Kind {
		case ChunkText:
			msg.Blocks = append(msg.Blocks, c.Block)
		case ChunkToolUse:
			msg.Blocks = append(msg.Blocks, c.Block)
			if w.cfg.Bugs.EagerTools {
				// BUG: the call starts before the assistant message holding
				// its tool_use is in the thread (if it ever is: the stream
				// may still fail), and it appends its own result.
				w.mu.Lock()
				call := w.newCallLocked(t, c.Block)
				w.mu.Unlock()
				w.start(t, call, wg)
			}
		case ChunkError:
			return msg, c.Err
		case ChunkEnd:
			return msg, nil
		}
	}
}

// newCallLocked registers the call a tool_use block asks for as one of
// turn t's. w.mu is held.
func (w *Worker) newCallLocked(t *turn, b Block) *ToolCall {
	c := &ToolCall{
		ID: b.ToolUseID, Tool: b.Tool, Input: b.Text,
		needsApproval: w.tools[b.Tool].NeedsApproval,
		decision:      chans.Make[bool](1),
	}
	w.calls = append(w.calls, c)
	t.calls = append(t.calls, c)
	return c
}

// start runs call c in its own goroutine.
func (w *Worker) start(t *turn, c *ToolCall, wg *sched.WaitGroup) {
	wg.Go(func() {
		status, output := w.call(t, c)
		w.mu.Lock()
		if !c.Status.Terminal() {
			c.Status, c.Output = status, output
		}
		c.exited = true
		w.mu.Unlock()
		if w.cfg.Bugs.EagerTools {
			w.appendResult(c)
		}
	})
}

// call runs c, after the user's approval if it needs it, and returns how it
// ended.
func (w *Worker) call(t *turn, c *ToolCall) (Status, string) {
	if c.needsApproval {
		if !w.awaitApproval(t, c) {
			return Cancelled, "" // or Rejected: the status is already set
		}
	}
	w.mu.Lock()
	if c.Status.Terminal() {
		w.mu.Unlock()
		return c.Status, ""
	}
	c.Status = Running
	w.mu.Unlock()
	out, err := w.tools[c.Tool].Run(t.ctx, c.Input)
	switch {
	case t.ctx.Err() != nil:
		return Cancelled, ""
	case err != nil:
		return Failed, err.Error()
	}
	return Done, out
}

// awaitApproval shows c's approval prompt and waits for the user's
// decision. It reports whether c may run.
func (w *Worker) awaitApproval(t *turn, c *ToolCall) bool {
	w.mu.Lock()
	if w.cfg.Bugs.StuckApproval {
		if c.Status == Queued {
			c.Status = AwaitingApproval
		}
		w.mu.Unlock()
		// BUG: if Cancel settled c while it was queued, the status stayed
		// Cancelled, no prompt is shown, and nobody will ever send a
		// decision: this receive blocks forever, and so does the turn.
		return c.decision.Recv()
	}
	if c.Status != Queued || t.ctx.Err() != nil {
		w.mu.Unlock()
		return false // cancelled before it started: show no prompt
	}
	c.Status = AwaitingApproval
	w.mu.Unlock()
	var ok bool
	switch chans.Select(c.decision.CaseRecv(&ok), context.Done(t.ctx).CaseRecv(nil)) {
	case 0:
		return ok
	default:
		return false
	}
}

// commitResults appends the results of a round's calls, all ended, as one
// user message.
func (w *Worker) commitResults(calls []*ToolCall) {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := Message{Role: User}
	for _, c := range calls {
		m.Blocks = append(m.Blocks, resultBlock(c))
	}
	w.thread = append(w.thread, m)
}

// appendResult appends c's result to the thread on its own: to the last
// message if it holds tool results, else as a new user message. It is what
// the buggy worker does (Bugs.EagerTools).
func (w *Worker) appendResult(c *ToolCall) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := len(w.thread); n > 0 && w.thread[n-1].onlyToolResults() {
		w.thread[n-1].Blocks = append(w.thread[n-1].Blocks, resultBlock(c))
		return
	}
	w.thread = append(w.thread, Message{Role: User, Blocks: []Block{resultBlock(c)}})
}

func resultBlock(c *ToolCall) Block {
	return Block{Kind: ToolResult, ToolUseID: c.ID, Text: c.Output, Status: c.Status}
}

func (w *Worker) anyRejected(calls []*ToolCall) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range calls {
		if c.Status == Rejected {
			return true
		}
	}
	return false
}

// fail records why turn t failed, unless it was cancelled.
func (w *Worker) fail(t *turn, err error) {
	if t.ctx.Err() != nil {
		return
	}
	w.mu.Lock()
	w.lastErr = err
	w.mu.Unlock()
}

// end ends turn t: the user messages that arrived meanwhile are appended
// and, if there are any, the next turn starts.
func (w *Worker) end(t *turn) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t.cancel()
	w.turn = nil
	if len(w.queued) == 0 {
		return
	}
	for _, text := range w.queued {
		w.thread = append(w.thread, Message{Role: User, Blocks: []Block{{Kind: Text, Text: text}}})
	}
	w.queued = nil
	w.startLocked()
}
