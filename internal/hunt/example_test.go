package hunt_test

import (
	"fmt"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/hunt"
)

// A loop over a toy target: the "program" takes three choices, and each
// correct one in sequence reaches new coverage; the bug needs all three.
// Coverage feedback finds it one step at a time.
func ExampleLoop() {
	key := entropy.KeyOf("digit")
	target := func(in hunt.Input, cover []byte) hunt.Outcome {
		src := entropy.ReplayThen(in.Recording, in.Seed)
		out := hunt.Outcome{}
		depth := 0
		for _, want := range []int{7, 3, 9} {
			if src.At(key).Choice(16) != want {
				break
			}
			depth++
			cover[depth] = 1 // a new feature for each correct prefix
		}
		if depth == 3 {
			out.Failure = &hunt.Failure{Kind: "bug", Signature: "bug: 7-3-9"}
		}
		out.Rec = src.Recording().Clone()
		return out
	}
	loop, err := hunt.New(hunt.Config{Seed: 1}, target)
	if err != nil {
		panic(err)
	}
	for range 100_000 {
		_, out, _, err := loop.Step()
		if err != nil {
			panic(err)
		}
		if out.Failure != nil {
			fmt.Println("found", out.Failure.Signature)
			break
		}
	}
	// Output: found bug: 7-3-9
}
