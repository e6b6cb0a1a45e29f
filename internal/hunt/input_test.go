package hunt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/engine"

	"github.com/dstgo/dst/entropy"
)

var (
	inChoice = entropy.MakeUID(entropy.KindChoice, entropy.KeyOf("input-test-choice"))
	inUint   = entropy.MakeUID(entropy.KindUint, entropy.KeyOf("input-test-uint"))
	inBytes  = entropy.MakeUID(entropy.KindBytes, entropy.KeyOf("input-test-bytes"))
)

// inSample is an input whose recording has values of several kinds, large
// values and bytes data.
func inSample() Input {
	return Input{
		Strategy: engine.PCT,
		Depth:    2,
		PCTSteps: 120,
		Seed:     0xdeadbeefcafe,
		Recording: &entropy.Recording{
			Values: []entropy.Value{
				{UID: inChoice, V: 3},
				{UID: inBytes, V: 2},
				{UID: inUint, V: 1<<63 + 5},
				{UID: inChoice, V: 0},
				{UID: inBytes, V: 3},
			},
			Data: []byte("xyabc"),
		},
	}
}

func TestInputTextRoundTrip(t *testing.T) {
	for _, in := range []Input{
		inSample(),
		{Strategy: engine.Random, Seed: 1, Recording: &entropy.Recording{Values: []entropy.Value{{UID: inChoice, V: 1}}}},
		{Strategy: engine.POS, Recording: &entropy.Recording{}},
		{Strategy: engine.PCT, Depth: -1, PCTSteps: 1 << 40, Seed: ^uint64(0), Recording: &entropy.Recording{}},
	} {
		text, err := in.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(text, []byte("dst-input 1 ")) || bytes.Count(text, []byte("\n")) != 2 || !bytes.HasSuffix(text, []byte("\n")) {
			t.Errorf("MarshalText = %q: want two lines, the first starting with the magic", text)
		}
		var got Input
		if err := got.UnmarshalText(text); err != nil {
			t.Fatalf("UnmarshalText(%q): %v", text, err)
		}
		if !reflect.DeepEqual(got, in) {
			t.Errorf("round trip of %q:\n got %+v %+v\nwant %+v %+v", text, got, got.Recording, in, in.Recording)
		}
		again, _ := got.MarshalText()
		if !bytes.Equal(again, text) {
			t.Errorf("re-marshalled %q, want %q", again, text)
		}
	}
}

// A nil recording marshals as the empty one.
func TestInputNilRecording(t *testing.T) {
	text, err := Input{Strategy: engine.Random, Seed: 7}.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	var got Input
	if err := got.UnmarshalText(text); err != nil {
		t.Fatal(err)
	}
	if got.Strategy != engine.Random || got.Seed != 7 || got.Recording == nil || got.Recording.Len() != 0 || len(got.Recording.Data) != 0 {
		t.Errorf("got %+v (rec %+v), want strategy random, seed 7 and an empty recording", got, got.Recording)
	}
}

// UnmarshalText replaces the whole input, or leaves it alone on error.
func TestInputUnmarshalReplacesOrKeeps(t *testing.T) {
	in := Input{Strategy: engine.PCT, Depth: 9, PCTSteps: 9, Seed: 9, Recording: &entropy.Recording{}}
	if err := in.UnmarshalText([]byte("dst-input 1 strategy=random\ne1\n")); err == nil {
		t.Fatal("an empty handle was accepted")
	}
	if in.Strategy != engine.PCT || in.Depth != 9 || in.Seed != 9 {
		t.Errorf("a failed UnmarshalText changed the input: %+v", in)
	}
	text, _ := Input{Strategy: engine.Random, Recording: &entropy.Recording{}}.MarshalText()
	if err := in.UnmarshalText(text); err != nil {
		t.Fatal(err)
	}
	if in.Depth != 0 || in.PCTSteps != 0 || in.Seed != 0 {
		t.Errorf("fields not in the text were kept: %+v", in)
	}
}

func TestReadWriteInput(t *testing.T) {
	dir := t.TempDir()
	in := inSample()
	path, err := WriteInput(dir, in)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := in.MarshalText()
	sum := sha256.Sum256(text)
	if want := filepath.Join(dir, hex.EncodeToString(sum[:8])+".input"); path != want {
		t.Errorf("WriteInput wrote %s, want %s (the content hash)", path, want)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, text) {
		t.Errorf("the file holds %q (%v), want %q", b, err, text)
	}
	got, err := ReadInput(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Errorf("ReadInput = %+v, want %+v", got, in)
	}

	again, err := WriteInput(dir, in)
	if err != nil || again != path {
		t.Errorf("writing the same input again: %s, %v; want %s", again, err, path)
	}
	other := in
	other.Seed++
	if p, err := WriteInput(dir, other); err != nil || p == path {
		t.Errorf("a different input was written to %s (%v), the same path as the first", p, err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 2 {
		t.Errorf("the directory holds %q, want the two inputs and no temporary files", names)
	}

	// WriteInput creates the directory.
	sub := filepath.Join(dir, "a", "b")
	if p, err := WriteInput(sub, in); err != nil || filepath.Dir(p) != sub {
		t.Errorf("WriteInput into a new directory: %s, %v", p, err)
	}

	if _, err := ReadInput(filepath.Join(dir, "missing.input")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadInput of a missing file: %v, want ErrNotExist", err)
	}
}

func TestInputBadFiles(t *testing.T) {
	good, _ := inSample().MarshalText()
	header, handle, _ := strings.Cut(string(good), "\n")
	for _, c := range []struct {
		name, text string
		want       string // in the error
	}{
		{"empty", "", "first line"},
		{"wrong magic", strings.Replace(string(good), "dst-input 1", "dst-input 2", 1), "first line"},
		{"no magic", "strategy=random\n" + handle, "first line"},
		{"magic without fields", "dst-input 1\n" + handle, "first line"},
		{"unknown strategy", strings.Replace(string(good), "strategy=pct", "strategy=hunt", 1), `unknown strategy "hunt"`},
		{"no strategy", strings.Replace(string(good), "strategy=pct ", "", 1), `unknown strategy ""`},
		{"bad depth", strings.Replace(string(good), "depth=2", "depth=two", 1), `header field "depth=two"`},
		{"bad pctsteps", strings.Replace(string(good), "pctsteps=120", "pctsteps=", 1), `header field "pctsteps="`},
		{"bad seed", strings.Replace(string(good), "seed=0x", "seed=0z", 1), `header field "seed=0z`},
		{"unknown field", header + " colour=red\n" + handle, `header field "colour=red": unknown field`},
		{"corrupt handle", header + "\ne1!!!!\n", "the recording"},
		{"not a handle", header + "\nhello\n", "the recording"},
		{"no handle", header + "\n", "the recording"},
		{"handle of garbage", header + "\ne1AAAAAAAA\n", "the recording"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var in Input
			err := in.UnmarshalText([]byte(c.text))
			if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("UnmarshalText(%q) = %v, want an error wrapping ErrBadInput saying %q", c.text, err, c.want)
			}
			path := filepath.Join(t.TempDir(), "bad.input")
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = ReadInput(path)
			if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), path) {
				t.Errorf("ReadInput = %v, want an error naming %s and wrapping ErrBadInput", err, path)
			}
		})
	}
}

// Every truncation of a file is rejected, except the one that drops only
// the final newline.
func TestInputTruncated(t *testing.T) {
	good, _ := inSample().MarshalText()
	path := filepath.Join(t.TempDir(), "t.input")
	for n := 0; n < len(good)-1; n++ {
		if err := os.WriteFile(path, good[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		if in, err := ReadInput(path); !errors.Is(err, ErrBadInput) {
			t.Errorf("the first %d of %d bytes: ReadInput = %+v, %v; want ErrBadInput", n, len(good), in, err)
		}
	}
	var in Input
	if err := in.UnmarshalText(good[:len(good)-1]); err != nil {
		t.Errorf("without its final newline: %v", err)
	}
}

func FuzzInputUnmarshal(f *testing.F) {
	good, _ := inSample().MarshalText()
	f.Add(good)
	for _, in := range []Input{
		{Strategy: engine.Random, Seed: 3},
		{Strategy: engine.POS, Recording: &entropy.Recording{Values: []entropy.Value{{UID: inUint, V: 42}}}},
	} {
		b, _ := in.MarshalText()
		f.Add(b)
	}
	f.Add([]byte("dst-input 1 strategy=random seed=0b101 depth=-3\ne1ZHN0ZQEAAAA\n"))
	f.Add([]byte("dst-input 1 strategy=pct strategy=random\n e1ZHN0ZQEAAAA \n\n"))
	f.Add([]byte("dst-input 1 strategy=hunt\n"))
	f.Add([]byte("dst-input 1 depth=99999999999999999999\n"))
	f.Add(good[:len(good)/2])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		var in Input
		if err := in.UnmarshalText(b); err != nil {
			if !errors.Is(err, ErrBadInput) {
				t.Fatalf("UnmarshalText(%q) = %v, not wrapping ErrBadInput", b, err)
			}
			return
		}
		if in.Recording == nil {
			t.Fatalf("UnmarshalText(%q) accepted it with a nil recording", b)
		}
		text, err := in.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var again Input
		if err := again.UnmarshalText(text); err != nil {
			t.Fatalf("UnmarshalText(%q) accepted, but its re-marshalling %q is rejected: %v", b, text, err)
		}
		if !reflect.DeepEqual(again, in) {
			t.Fatalf("UnmarshalText(%q) = %+v (rec %+v); re-marshalled and parsed: %+v (rec %+v)", b, in, in.Recording, again, again.Recording)
		}
		text2, _ := again.MarshalText()
		if !bytes.Equal(text, text2) {
			t.Fatalf("marshalling is not stable: %q, then %q", text, text2)
		}
	})
}
