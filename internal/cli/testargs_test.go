package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestTestPackageAfterFlags: a package given after the test binary's
// flags is tested, not ".". Regression: go test hands every argument from
// its first unknown flag (-dst.*) on to the test binary, so dstreplay test
// rewrote the package and go test then tested the current directory
// ("no test files", exit 0), having run nothing.
func TestTestPackageAfterFlags(t *testing.T) {
	t.Chdir("../..")
	var out, errb bytes.Buffer
	code := Main([]string{"test", "-wrap", "-run", "^TestFixedWallet$", "-count=1", "-v", "-dst.iters=3", "-dst.dir=off", "./examples/plain"}, &out, &errb)
	if code != ExitOK || !strings.Contains(out.String(), "--- PASS: TestFixedWallet") || !strings.Contains(out.String(), "3 schedules passed") {
		t.Errorf("exit %d, want the package's test run and passed\nstdout:\n%s\nstderr:\n%s", code, &out, &errb)
	}
}
