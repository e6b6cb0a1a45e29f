package hunt

// neverNew is sinceNew for a test that has not found new coverage.
const neverNew = 64

// Weights of tests when picking the next one to run (see testWeight).
const (
	weightFresh = 16 // a test that has not run yet
	weightFloor = 1  // what every test keeps
	weightNew   = 8  // the last batch found new coverage; halved with every batch since
	weightFew   = 4  // at most, for having run few executions compared with the others
)

// pickStats is what picking a test looks at.
type pickStats struct {
	execs    int64
	batches  int
	sinceNew int
}

// testWeight is a test's chance of being picked, relative to the others'.
// mean is the mean of all candidates' executions.
func testWeight(s pickStats, mean float64) int {
	if s.batches == 0 {
		return weightFresh
	}
	w := weightFloor
	if s.sinceNew < 8 {
		w += weightNew >> s.sinceNew
	}
	few := 1.0 // all at zero executions: as few as any
	if d := float64(s.execs) + mean; d > 0 {
		few = mean / d
	}
	return w + int(weightFew*few+0.5)
}

// intN is a source of random numbers in [0, n).
type intN interface{ IntN(n int) int }

// pickTest draws the index of the test for the next batch, each with a
// chance proportional to its testWeight; but while some tests have not run,
// only those, so that every test runs once before any runs twice.
func pickTest(stats []pickStats, r intN) int {
	var mean float64
	fresh := false
	for _, s := range stats {
		mean += float64(s.execs)
		fresh = fresh || s.batches == 0
	}
	mean /= float64(len(stats))
	weights := make([]int, len(stats))
	total := 0
	for i, s := range stats {
		if !fresh || s.batches == 0 {
			weights[i] = testWeight(s, mean)
		}
		total += weights[i]
	}
	n := r.IntN(total)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	return len(stats) - 1
}
