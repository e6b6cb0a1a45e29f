package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dstgo/dst/internal/gotest"
	"github.com/dstgo/dst/internal/hunt"
)

// What a hunt reports to GitHub Actions (dstreplay hunt -github, the
// default when GITHUB_ACTIONS is true): a workflow command per finding, so
// that the line it is best read at is marked in the pull request and the
// run, and a job summary in Markdown appended to GITHUB_STEP_SUMMARY.

// githubAnnotations writes an error annotation for each of h's findings to
// w: the file and line relative to root (the repository: GITHUB_WORKSPACE),
// when the line is the repository's, and the kind, test and message.
func githubAnnotations(w io.Writer, h *hunt.Hunter, root string) {
	for _, f := range h.Findings {
		props := "title=" + ghProperty(fmt.Sprintf("dstreplay hunt: %s in %s", f.Kind, f.Test))
		if rel, ok := inRepo(root, f.File); ok {
			props = fmt.Sprintf("file=%s,line=%d,%s", ghProperty(rel), f.Line, props)
		}
		msg := f.Message
		if f.Trace != "" {
			msg += "\ntrace: " + repoPath(root, f.Trace)
		}
		fmt.Fprintf(w, "::error %s::%s\n", props, ghData(msg))
	}
}

// githubSummary is the job summary of h in Markdown: what was hunted, a
// table of the tests, and each finding with where it is, its shrinking,
// and the commands that open and re-run it (the traces are the workflow's
// artifacts: paths are relative to root).
func githubSummary(h *hunt.Hunter, rerun, root string) string {
	var b strings.Builder
	verdict := "no failures"
	if n := len(h.Findings); n > 0 {
		verdict = fmt.Sprintf("%d %s", n, plural(n, "failure"))
	}
	fmt.Fprintf(&b, "## dstreplay hunt: %s\n\n", verdict)
	fmt.Fprintf(&b, "%d %s hunted for %v with %d %s: %d executions.\n\n", len(h.Tests), plural(len(h.Tests), "test"),
		h.Elapsed.Round(100*time.Millisecond), h.Settings.Jobs, plural(h.Settings.Jobs, "worker"), h.Execs)
	b.WriteString("| test | executions | corpus | coverage | failures | note |\n| --- | ---: | ---: | ---: | ---: | --- |\n")
	for _, t := range h.Tests {
		note := t.Dropped
		if note == "" && t.Unreached() {
			note = "no scheduling point reached"
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s |\n", mdCell(t.String()), t.Execs, t.CorpusSize, t.Cover, t.Failures, mdCell(note))
	}
	for _, f := range h.Findings {
		fmt.Fprintf(&b, "\n### %s in %s\n\n", mdCell(f.Kind), mdCell(f.Test.String()))
		if rel, ok := inRepo(root, f.File); ok {
			fmt.Fprintf(&b, "At `%s:%d`. ", rel, f.Line)
		}
		fmt.Fprintf(&b, "First found by worker %d after %v", f.Worker, f.At.Round(time.Second))
		if f.Count > 1 {
			fmt.Fprintf(&b, ", %d times in all", f.Count)
		}
		b.WriteString(".\n\n")
		fmt.Fprintf(&b, "```\n%s\n```\n\n", strings.ReplaceAll(f.Message, "```", "'''"))
		if f.Sized {
			fmt.Fprintf(&b, "Shrunk: %d → %d preemptions, %d → %d steps, %d → %d goroutines.\n\n",
				f.Before.Preemptions, f.After.Preemptions, f.Before.Steps, f.After.Steps, f.Before.Goroutines, f.After.Goroutines)
		}
		var cmds []string
		switch {
		case f.Trace != "" && f.Kind != "crash":
			tr := shellQuote(repoPath(root, f.Trace))
			cmds = append(cmds, "dstreplay "+tr+"          # step through it", "dstreplay exec "+tr+"     # re-run it live")
		case f.Trace != "":
			cmds = append(cmds, "dstreplay "+shellQuote(repoPath(root, f.Trace))+"          # its trace up to the crash")
		}
		if f.Saved != "" {
			cmds = append(cmds, fmt.Sprintf("%s %s -run '%s' -dst.input=%s", rerun, f.Test.Pkg.Path,
				gotest.RunPattern(f.Test.Name), shellQuote(repoPath(root, f.Saved))))
		}
		if len(cmds) > 0 {
			fmt.Fprintf(&b, "From the workflow's artifact, in the repository:\n\n```sh\n%s\n```\n", strings.Join(cmds, "\n"))
		}
	}
	return b.String()
}

// appendSummary appends s to the job summary file at path (GitHub reads it
// when the step ends). The file is the runner's and is appended to, not
// replaced: other steps write theirs there too.
func appendSummary(path, s string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("the job summary: %w", err)
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		return fmt.Errorf("the job summary %s: %w", path, err)
	}
	return f.Close()
}

// inRepo is file relative to root, with slashes, when it lies beneath it.
func inRepo(root, file string) (string, bool) {
	if file == "" || root == "" {
		return "", false
	}
	rel, err := filepath.Rel(root, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// repoPath is path relative to root when it lies beneath it, else path.
func repoPath(root, path string) string {
	if rel, ok := inRepo(root, path); ok {
		return rel
	}
	return path
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// mdCell is s for a Markdown table cell or heading: on one line, its pipes
// escaped.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}
