package agent

import (
	"fmt"
	"strings"
)

// Role is who wrote a message.
type Role string

// The two roles of a conversation. Tool results travel in user messages, as
// in Anthropic's Messages API.
const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// BlockKind is what a block of a message holds.
type BlockKind int

// The kinds of block.
const (
	Text       BlockKind = iota // text, from the user or the model
	ToolUse                     // the model asks to run a tool
	ToolResult                  // the outcome of a tool call, answering a ToolUse
)

// Block is one part of a message.
type Block struct {
	Kind BlockKind
	// Text is the text of a Text block, the input of a ToolUse block, or the
	// output of a ToolResult block.
	Text string
	// ToolUseID names the tool call of a ToolUse or ToolResult block.
	ToolUseID string
	// Tool is the tool's name, in a ToolUse block.
	Tool string
	// Status is how the call ended, in a ToolResult block.
	Status Status
}

func (b Block) String() string {
	switch b.Kind {
	case ToolUse:
		return fmt.Sprintf("tool_use(%s %s)", b.ToolUseID, b.Tool)
	case ToolResult:
		return fmt.Sprintf("tool_result(%s %s)", b.ToolUseID, b.Status)
	default:
		return fmt.Sprintf("text(%q)", b.Text)
	}
}

// Message is one entry of a thread.
type Message struct {
	Role   Role
	Blocks []Block
}

func (m Message) String() string {
	parts := make([]string, len(m.Blocks))
	for i, b := range m.Blocks {
		parts[i] = b.String()
	}
	return fmt.Sprintf("%s[%s]", m.Role, strings.Join(parts, " "))
}

// toolUses returns the IDs of m's ToolUse blocks, in order.
func (m Message) toolUses() []string {
	var ids []string
	for _, b := range m.Blocks {
		if b.Kind == ToolUse {
			ids = append(ids, b.ToolUseID)
		}
	}
	return ids
}

// toolResults returns the IDs of m's ToolResult blocks, in order.
func (m Message) toolResults() []string {
	var ids []string
	for _, b := range m.Blocks {
		if b.Kind == ToolResult {
			ids = append(ids, b.ToolUseID)
		}
	}
	return ids
}

// onlyToolResults reports whether m is a user message made of tool results.
func (m Message) onlyToolResults() bool {
	if m.Role != User || len(m.Blocks) == 0 {
		return false
	}
	for _, b := range m.Blocks {
		if b.Kind != ToolResult {
			return false
		}
	}
	return true
}

// CheckToolPairs checks the rule the inference API enforces on a thread:
// every ToolUse block of an assistant message is answered by exactly one
// ToolResult block in the next message, which is a user message, and every
// ToolResult answers a ToolUse of the message right before it. A thread that
// breaks it is corrupted: the API rejects every further request. The error
// lists every violation, one per line.
func CheckToolPairs(thread []Message) error {
	var problems []string
	for i, m := range thread {
		if uses := m.toolUses(); len(uses) > 0 {
			if m.Role != Assistant {
				problems = append(problems, fmt.Sprintf("message %d: a %s message holds tool_use blocks %v", i, m.Role, uses))
			}
			var answers []string
			if i+1 < len(thread) && thread[i+1].Role == User {
				answers = thread[i+1].toolResults()
			}
			for _, id := range uses {
				switch n := count(answers, id); n {
				case 1:
				case 0:
					problems = append(problems, fmt.Sprintf("message %d: tool_use %s has no tool_result in the next message", i, id))
				default:
					problems = append(problems, fmt.Sprintf("message %d: tool_use %s is answered %d times in the next message", i, id, n))
				}
			}
		}
		if results := m.toolResults(); len(results) > 0 {
			var asked []string
			if i > 0 && thread[i-1].Role == Assistant {
				asked = thread[i-1].toolUses()
			}
			for _, id := range results {
				if count(asked, id) == 0 {
					problems = append(problems, fmt.Sprintf("message %d: tool_result %s answers no tool_use of the message before it", i, id))
				}
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%s\nthread:\n  %s", strings.Join(problems, "\n"), formatThread(thread))
}

func count(ids []string, id string) int {
	n := 0
	for _, x := range ids {
		if x == id {
			n++
		}
	}
	return n
}

func formatThread(thread []Message) string {
	lines := make([]string, len(thread))
	for i, m := range thread {
		lines[i] = fmt.Sprintf("%d: %s", i, m)
	}
	return strings.Join(lines, "\n  ")
}
