package agent

import (
	"errors"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/context"
	"github.com/dstgo/dst/vtime"
)

// ErrTool is the error a failed tool call reports.
var ErrTool = errors.New("agent: tool failed")

// Tool is a fake tool: it takes Delay of virtual time to run, and two fault
// points make it misbehave:
//
//   - "tool.error": the call fails with ErrTool;
//   - "tool.slow": the call takes 50 times as long.
//
// A tool that NeedsApproval runs only once the user approves the call.
type Tool struct {
	Name          string
	NeedsApproval bool
	Delay         time.Duration
}

// DefaultTools are the tools of the tests: two that read, two that write
// and need the user's approval.
func DefaultTools() []Tool {
	return []Tool{
		{Name: "read_file", Delay: 5 * time.Millisecond},
		{Name: "grep", Delay: 20 * time.Millisecond},
		{Name: "edit_file", NeedsApproval: true, Delay: 10 * time.Millisecond},
		{Name: "shell", NeedsApproval: true, Delay: 30 * time.Millisecond},
	}
}

// Run runs the tool on input. It returns ctx's error when ctx is canceled
// first.
func (tl Tool) Run(ctx context.Context, input string) (string, error) {
	delay := tl.Delay
	if sched.Fault("tool.slow") {
		delay *= 50
	}
	timer := vtime.NewTimer(delay)
	defer timer.Stop()
	if chans.Select(timer.C.CaseRecv(nil), context.Done(ctx).CaseRecv(nil)) == 1 {
		return "", ctx.Err()
	}
	if sched.Fault("tool.error") {
		return "", ErrTool
	}
	return tl.Name + " output for " + input, nil
}
