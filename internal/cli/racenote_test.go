package cli

import "testing"

// dstreplay test says that data races are not checked unless go test's
// arguments include -race (not the default: it takes several times as
// long), and says nothing when they are.
func TestRaceNote(t *testing.T) {
	for _, c := range []struct {
		args []string
		note bool
	}{
		{[]string{"./..."}, true},
		{[]string{"-race", "./..."}, false},
		{[]string{"--race", "-count=1", "."}, false},
		{[]string{"-race=true", "."}, false},
		{[]string{"-race=false", "."}, true},
		{[]string{"-race", "-race=0", "."}, true},
		{[]string{".", "-args", "-race"}, true}, // the test binary's argument, not go test's
		{[]string{"-run", "TestRace", "."}, true},
	} {
		if got := raceNote(c.args) != ""; got != c.note {
			t.Errorf("%q: note %v, want %v", c.args, got, c.note)
		}
	}
}
