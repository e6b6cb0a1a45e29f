package entropy_test

import (
	"hash/fnv"
	"testing"

	"github.com/dstgo/dst/entropy"
)

func TestKindString(t *testing.T) {
	want := map[entropy.Kind]string{
		entropy.KindUint:   "uint",
		entropy.KindInt:    "int",
		entropy.KindRange:  "range",
		entropy.KindBool:   "bool",
		entropy.KindChoice: "choice",
		entropy.KindBytes:  "bytes",
		entropy.KindStop:   "stop",
		0:                  "kind(0)",
		8:                  "kind(8)",
		255:                "kind(255)",
	}
	for k, w := range want {
		if got := k.String(); got != w {
			t.Errorf("Kind(%d).String() = %q, want %q", uint8(k), got, w)
		}
	}
}

func TestKeyOf(t *testing.T) {
	// FNV-1a 64 test vectors, masked to 56 bits.
	if got, want := entropy.KeyOf(""), entropy.Key(0xcbf29ce484222325&(1<<56-1)); got != want {
		t.Errorf("KeyOf(\"\") = %#x, want %#x", got, want)
	}
	if got, want := entropy.KeyOf("a"), entropy.Key(0xaf63dc4c8601ec8c&(1<<56-1)); got != want {
		t.Errorf("KeyOf(\"a\") = %#x, want %#x", got, want)
	}
	for _, s := range []string{"x", "sched.pick", "github.com/dstgo/dst/entropy.TestKeyOf:42", "\x00\xff"} {
		h := fnv.New64a()
		h.Write([]byte(s))
		if got, want := entropy.KeyOf(s), entropy.Key(h.Sum64()&(1<<56-1)); got != want {
			t.Errorf("KeyOf(%q) = %#x, want %#x", s, got, want)
		}
	}
	name := "some.pkg.Function:123"
	if n := testing.AllocsPerRun(100, func() { entropy.KeyOf(name) }); n != 0 {
		t.Errorf("KeyOf allocates %v times per call", n)
	}
}

func TestUID(t *testing.T) {
	u := entropy.MakeUID(entropy.KindChoice, 0x00ab12cd34ef56)
	if got, want := u.String(), "choice:00ab12cd34ef56"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if u.Kind() != entropy.KindChoice || u.Key() != 0x00ab12cd34ef56 {
		t.Errorf("Kind, Key = %v, %#x", u.Kind(), u.Key())
	}
	if uint64(u) != uint64(entropy.KindChoice)<<56|0x00ab12cd34ef56 {
		t.Errorf("layout: %#x", uint64(u))
	}
	// Bits of the key above 56 must not leak into the kind.
	v := entropy.MakeUID(entropy.KindUint, entropy.Key(1<<63|0xff<<56|5))
	if v.Kind() != entropy.KindUint || v.Key() != 5 {
		t.Errorf("MakeUID did not mask the key: kind %v key %#x", v.Kind(), v.Key())
	}
	if got, want := entropy.MakeUID(entropy.KindStop, 1).String(), "stop:00000000000001"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
