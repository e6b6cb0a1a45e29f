//go:build race

package rewrite_test

// raceEnabled: the tests that run many schedules of big kernels run once,
// in the build without -race (the kernels' own builds do not use it).
const raceEnabled = true
