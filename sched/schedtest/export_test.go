package schedtest

import "github.com/dstgo/dst/internal/hunt"

// ExploreShrunk is Explore, returning also how the failure was shrunk (nil
// when it was not).
func ExploreShrunk(opts Options, body func(*T)) (*Result, *hunt.ShrinkResult, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, nil, err
	}
	x := explore(o, "schedtest.Explore", nil, body, nil)
	if x.err != nil {
		return nil, nil, x.err
	}
	if x.res.Failure != nil && len(x.found) == 0 {
		x = shrinkFailure(o, "schedtest.Explore", nil, body, x)
	}
	return x.res, x.shrunk, nil
}

// ExploreAsTest explores as Test does, without a *testing.T: it returns the
// last schedule's result.
func ExploreAsTest(opts Options, body func(*T)) (*Result, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	o.stopSequential = true
	x := explore(o, "schedtest.ExploreAsTest", nil, body, nil)
	return x.res, x.err
}
