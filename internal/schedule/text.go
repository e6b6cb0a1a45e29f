package schedule

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dstgo/dst/entropy"
)

// textMagic starts a schedule's text form: the first line of a hunt's
// input file.
const textMagic = "dst-input 1"

// ErrBadText is wrapped by every error about a schedule's text form (a
// hunt's input file).
var ErrBadText = errors.New("not a valid input file")

// MarshalText encodes s as two lines: a header naming the strategy, its
// parameters and the seed, and the recording's handle. It is the form of a
// hunt's input files, whose recording is replayed and then the seed serves
// fresh draws: whoever reads one sets Then (Then and SeedRecorded are not
// written).
func (s Schedule) MarshalText() ([]byte, error) {
	rec := s.Recording
	if rec == nil {
		rec = &entropy.Recording{}
	}
	return fmt.Appendf(nil, "%s strategy=%s depth=%d pctsteps=%d seed=%#x\n%s\n",
		textMagic, s.Strategy, s.Depth, s.PCTSteps, s.Seed, rec.Handle()), nil
}

// UnmarshalText decodes the output of MarshalText, replacing the whole of
// s, or leaving it alone on error.
func (s *Schedule) UnmarshalText(b []byte) error {
	header, rest, ok := strings.Cut(string(b), "\n")
	if !ok || !strings.HasPrefix(header, textMagic+" ") {
		return fmt.Errorf("%w: the first line is not %q", ErrBadText, textMagic+" ...")
	}
	var out Schedule
	strategy := ""
	for _, field := range strings.Fields(header[len(textMagic):]) {
		k, v, _ := strings.Cut(field, "=")
		var err error
		switch k {
		case "strategy":
			strategy = v
		case "depth":
			out.Depth, err = strconv.Atoi(v)
		case "pctsteps":
			out.PCTSteps, err = strconv.Atoi(v)
		case "seed":
			out.Seed, err = strconv.ParseUint(v, 0, 64)
		default:
			err = errors.New("unknown field")
		}
		if err != nil {
			return fmt.Errorf("%w: header field %q: %v", ErrBadText, field, err)
		}
	}
	st, err := ParseStrategy(strategy)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadText, err)
	}
	out.Strategy = st
	// Input files written before handles had a checksum hold the older
	// form, which a file, not copied by hand, may keep.
	rec, err := entropy.ParseStoredHandle(strings.TrimSpace(rest))
	if err != nil {
		return fmt.Errorf("%w: the recording: %w", ErrBadText, err)
	}
	out.Recording = rec
	*s = out
	return nil
}
