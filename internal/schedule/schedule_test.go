package schedule

import (
	"bytes"
	"encoding/base64"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/trace"
)

func TestParseStrategy(t *testing.T) {
	for _, s := range Strategies {
		got, err := ParseStrategy(s.String())
		if err != nil || got != s {
			t.Errorf("ParseStrategy(%q) = %v, %v", s, got, err)
		}
	}
	for _, bad := range []string{"", "portfolio", "hunt", "PCT"} {
		if _, err := ParseStrategy(bad); err == nil || !strings.Contains(err.Error(), "random, pct, pos") {
			t.Errorf("ParseStrategy(%q) = %v, want an error listing the strategies", bad, err)
		}
	}
}

// A schedule survives a trace's header in each of its entropy modes, and
// the header says which.
func TestHeaderRoundTrip(t *testing.T) {
	rec := &entropy.Recording{Values: []entropy.Value{{UID: entropy.MakeUID(entropy.KindChoice, 7), V: 3}}}
	for _, c := range []struct {
		s      Schedule
		option string
	}{
		{Schedule{Strategy: engine.PCT, Depth: 3, PCTSteps: 120, Seed: 0x2a, Recording: rec, SeedRecorded: true}, trace.EntropySeed},
		{Schedule{Strategy: engine.Random, Recording: rec}, trace.EntropyRecording},
		{Schedule{Strategy: engine.POS, Seed: 9, Recording: rec, Then: true}, trace.EntropyRecordingThenSeed},
	} {
		var h trace.Header
		c.s.Header(&h, c.s.Recording)
		if !slices.Contains(h.Options, c.option) || !IsEntropyOption(c.option) {
			t.Errorf("%v: header options %q, want %q", c.s, h.Options, c.option)
		}
		got, err := FromHeader(&h)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c.s) {
			t.Errorf("round trip of %+v gave %+v", c.s, got)
		}
	}
	var h trace.Header
	Schedule{Strategy: engine.Random}.Header(&h, rec)
	h.Strategy = "bogus"
	if _, err := FromHeader(&h); err == nil || !strings.Contains(err.Error(), `"bogus"`) {
		t.Errorf("FromHeader of an unknown strategy = %v", err)
	}
}

func TestTextForms(t *testing.T) {
	pct := Schedule{Strategy: engine.PCT, Seed: 0x2a}.WithDefaults(0)
	if got, want := pct.String(), "seed 0x2a, pct depth 3 over 100 steps"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if got, want := strings.Join(pct.Flags(), " "), "-dst.seed=0x2a -dst.strategy=pct -dst.depth=3 -dst.pctsteps=100"; got != want {
		t.Errorf("Flags = %q, want %q", got, want)
	}
	rnd := Schedule{Strategy: engine.Random, Recording: &entropy.Recording{}}
	if got, want := rnd.String(), "from a recording, random"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if f := rnd.Flags(); len(f) != 2 || !strings.HasPrefix(f[0], "-dst.replay=") || f[1] != "-dst.strategy=random" {
		t.Errorf("Flags = %q", f)
	}
}

// An input file written before handles had a checksum still reads; one
// whose handle was damaged does not.
func TestInputFileHandles(t *testing.T) {
	src := entropy.New(5)
	src.At(entropy.KeyOf("n")).IntRange(0, 9)
	rec := src.Recording()
	b, _ := rec.MarshalBinary()
	old := "dst-input 1 strategy=random depth=3 pctsteps=0 seed=0x7\ne1" + base64.RawURLEncoding.EncodeToString(b) + "\n"
	var s Schedule
	if err := s.UnmarshalText([]byte(old)); err != nil {
		t.Fatalf("an input file with an older handle: %v", err)
	}
	if got, _ := s.Recording.MarshalBinary(); !bytes.Equal(got, b) {
		t.Fatalf("an input file with an older handle: the recording changed")
	}
	text, _ := Schedule{Strategy: engine.Random, Recording: rec}.MarshalText()
	i := bytes.IndexByte(text, '\n') + 6
	text[i] ^= 1 // a character of the handle changed
	if err := s.UnmarshalText(text); !errors.Is(err, entropy.ErrDamaged) {
		t.Fatalf("an input file with a damaged handle: %v, want %v", err, entropy.ErrDamaged)
	}
}
