package engine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseFaults parses a list of faults to fire (-dst.faults): comma-separated
// name=p or name=p:bound, where p is a probability and bound a duration,
// as Config.Faults and Config.FaultBounds.
func ParseFaults(v string) (map[string]float64, map[string]time.Duration, error) {
	ps, bs := map[string]float64{}, map[string]time.Duration{}
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, val, ok := strings.Cut(item, "=")
		if !ok || name == "" {
			return nil, nil, fmt.Errorf("%q: want name=probability or name=probability:bound", item)
		}
		pv, bv, hasBound := strings.Cut(val, ":")
		p, err := strconv.ParseFloat(pv, 64)
		if err != nil || p < 0 || p > 1 {
			return nil, nil, fmt.Errorf("%q: the probability %q is not a number in [0, 1]", item, pv)
		}
		ps[name] = p
		if hasBound {
			d, err := time.ParseDuration(bv)
			if err != nil || d <= 0 {
				return nil, nil, fmt.Errorf("%q: the bound %q is not a positive duration (such as 50ms)", item, bv)
			}
			bs[name] = d
		}
	}
	if len(ps) == 0 {
		return nil, nil, errors.New("want at least one name=probability")
	}
	return ps, bs, nil
}
