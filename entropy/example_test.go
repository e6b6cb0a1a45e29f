package entropy_test

import (
	"fmt"

	"github.com/dstgo/dst/entropy"
)

// Fresh draws from a fixed seed are the same on every run.
func Example() {
	s := entropy.New(42)
	die := s.At(entropy.KeyOf("die"))
	coin := s.At(entropy.KeyOf("coin"))
	for i := 0; i < 3; i++ {
		fmt.Println(die.IntRange(1, 6), coin.Bool(0.5))
	}
	fmt.Println(s.Len(), "values recorded")
	// Output:
	// 1 true
	// 5 false
	// 6 false
	// 6 values recorded
}

// A recording replays to the same values, and a replay records its input
// byte for byte.
func ExampleReplay() {
	pick := entropy.KeyOf("pick")
	run := func(s *entropy.Source) []int {
		var got []int
		for !s.At(pick).Stop() {
			got = append(got, s.At(pick).Choice(10))
		}
		return got
	}

	fresh := entropy.New(7)
	fmt.Println("fresh: ", run(fresh))

	replay := entropy.Replay(fresh.Recording())
	fmt.Println("replay:", run(replay), "fallbacks:", replay.Fallbacks())

	a, _ := fresh.Recording().MarshalBinary()
	b, _ := replay.Recording().MarshalBinary()
	fmt.Println("same recording:", string(a) == string(b))
	// Output:
	// fresh:  [2 9 8]
	// replay: [2 9 8] fallbacks: 0
	// same recording: true
}

// A uid the recording does not know is served by the fallback; the other
// uids' values are unaffected.
func ExampleReplay_fallback() {
	a, b := entropy.KeyOf("a"), entropy.KeyOf("b")
	fresh := entropy.New(3)
	fmt.Println(fresh.At(a).Choice(100), fresh.At(a).Choice(100))

	replay := entropy.Replay(fresh.Recording())
	fmt.Println(replay.At(a).Choice(100), replay.At(b).Choice(100), replay.At(a).Choice(100))
	fmt.Println("fallbacks:", replay.Fallbacks())
	// Output:
	// 69 64
	// 69 0 64
	// fallbacks: 1
}

// A handle is a one-line form of a recording for logs and command lines.
// It carries a checksum: a handle damaged in copying is refused rather than
// replayed as another recording.
func ExampleRecording_Handle() {
	s := entropy.New(1)
	s.At(entropy.KeyOf("n")).IntRange(0, 1000)
	s.At(entropy.KeyOf("ok")).Bool(0.5)
	h := s.Recording().Handle()
	fmt.Println(h)

	rec, err := entropy.ParseHandle(h)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := entropy.Replay(rec)
	fmt.Println(r.At(entropy.KeyOf("n")).IntRange(0, 1000), r.At(entropy.KeyOf("ok")).Bool(0.5))
	for _, v := range rec.Values {
		fmt.Println(v.UID, v.V)
	}

	damaged := h[:10] + "X" + h[11:]
	_, err = entropy.ParseHandle(damaged)
	fmt.Println(err)
	// Output:
	// e2ZHN0ZQEC8fCHsMjp-LED79fZqvugl9gEAgC_BQEAANppeB0
	// 703 false
	// range:63e34c8601f871 703
	// bool:b05d07b5566bef 0
	// entropy: handle: the handle is damaged: checksum mismatch; copy it again from the report
}
