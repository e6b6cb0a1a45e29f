package agent

import (
	"errors"
	"fmt"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/context"
	"github.com/dstgo/dst/vtime"
)

// ErrInference is the error a failed inference stream reports.
var ErrInference = errors.New("agent: inference failed (overloaded)")

// ChunkKind is what a chunk of an inference stream carries.
type ChunkKind int

// The kinds of chunk. A stream is a sequence of ChunkText and ChunkToolUse
// chunks ended by ChunkEnd or ChunkError, after which the channel is closed.
const (
	ChunkText    ChunkKind = iota // a piece of the assistant's text
	ChunkToolUse                  // a complete tool_use block
	ChunkEnd                      // the response is complete
	ChunkError                    // the response failed; Err says why
)

// Chunk is one event of an inference stream.
type Chunk struct {
	Kind  ChunkKind
	Block Block // the Text or ToolUse block
	Err   error
}

// Inference is a fake inference service. It answers a thread with a stream
// of chunks: some text, then up to two tool_use blocks (fewer as the turn
// goes on, none after two rounds of tools, so that every turn ends). Chunks
// arrive ChunkDelay apart on the virtual clock, and two fault points make
// the service misbehave:
//
//   - "inference.error": the stream fails with ErrInference before a chunk;
//   - "inference.slow": a chunk takes SlowDelay instead of ChunkDelay.
//
// Draw chooses the response: Draw(n) returns a value in [0, n). Tests pass
// the run's entropy (t.Entropy().Choice), so that the responses are part of
// the schedule and are reproduced with it. A nil Draw always returns 0.
type Inference struct {
	Draw       func(n int) int
	Tools      []string // the tools the model may ask for
	ChunkDelay time.Duration
	SlowDelay  time.Duration

	mu   sched.Mutex
	next int // the number of the next tool_use ID
}

// NewInference returns an inference service that asks for tools, drawing
// its responses from draw.
func NewInference(draw func(n int) int, tools []string) *Inference {
	return &Inference{Draw: draw, Tools: tools, ChunkDelay: 10 * time.Millisecond, SlowDelay: 2 * time.Second}
}

func (inf *Inference) draw(n int) int {
	if inf.Draw == nil || n <= 1 {
		return 0
	}
	return inf.Draw(n)
}

func (inf *Inference) newID() string {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	inf.next++
	return fmt.Sprintf("toolu_%d", inf.next)
}

// Stream starts answering thread and returns the channel the chunks arrive
// on. The stream stops, without closing the channel, when ctx is canceled.
func (inf *Inference) Stream(ctx context.Context, thread []Message) *chans.Chan[Chunk] {
	out := chans.Make[Chunk](0)
	plan := inf.plan(thread)
	sched.Go(func() { inf.produce(ctx, out, plan) })
	return out
}

// plan draws the chunks of the response to thread.
func (inf *Inference) plan(thread []Message) []Chunk {
	// Rounds of tools since the user last wrote: the model gives up on tools
	// after two, so that a turn always ends.
	rounds := 0
	for i := len(thread) - 1; i >= 0; i-- {
		m := thread[i]
		if m.Role == User && !m.onlyToolResults() {
			break
		}
		if m.Role == Assistant {
			rounds++
		}
	}
	plan := []Chunk{{Kind: ChunkText, Block: Block{Kind: Text, Text: "Let me look."}}}
	tools := 0
	if rounds < 2 && len(inf.Tools) > 0 {
		tools = inf.draw(3)
	}
	for range tools {
		if inf.draw(2) == 1 {
			plan = append(plan, Chunk{Kind: ChunkText, Block: Block{Kind: Text, Text: " And then"}})
		}
		name := inf.Tools[inf.draw(len(inf.Tools))]
		plan = append(plan, Chunk{Kind: ChunkToolUse, Block: Block{
			Kind: ToolUse, ToolUseID: inf.newID(), Tool: name, Text: "input for " + name,
		}})
	}
	return append(plan, Chunk{Kind: ChunkEnd})
}

// produce sends plan on out, one chunk per delay, until it is sent, a fault
// fails it, or ctx is canceled.
func (inf *Inference) produce(ctx context.Context, out *chans.Chan[Chunk], plan []Chunk) {
	done := context.Done(ctx)
	for _, c := range plan {
		if sched.Fault("inference.error") {
			c = Chunk{Kind: ChunkError, Err: ErrInference}
		}
		delay := inf.ChunkDelay
		if sched.Fault("inference.slow") {
			delay = inf.SlowDelay
		}
		timer := vtime.NewTimer(delay)
		if chans.Select(timer.C.CaseRecv(nil), done.CaseRecv(nil)) == 1 {
			timer.Stop()
			return
		}
		if chans.Select(out.CaseSend(c), done.CaseRecv(nil)) == 1 {
			return
		}
		if c.Kind == ChunkEnd || c.Kind == ChunkError {
			out.Close()
			return
		}
	}
}
