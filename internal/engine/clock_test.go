package engine

import (
	"testing"
	"time"
)

// TestDefaultStartIsOrdinary: the virtual clock starts at an instant that
// no calendar computation treats specially, as a real test run does. At
// 2000-01-01T00:00:00Z, a Saturday midnight opening a leap year, robfig/
// cron's TestJob failed: its job "at 00:00:01 on January 1" came one
// second after the start, before the jobs it expected first.
func TestDefaultStartIsOrdinary(t *testing.T) {
	s := DefaultStart
	if s.Location() != time.UTC {
		t.Errorf("DefaultStart %v is not in UTC: a run's times would depend on the machine's zone", s)
	}
	if y := s.Year(); y <= 2020 || y >= 2038 {
		t.Errorf("DefaultStart %v: year %d, want after 2020 (certificates, TTLs) and before 2038", s, y)
	}
	if y := s.Year(); y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		t.Errorf("DefaultStart %v is in a leap year", s)
	}
	if m := s.Month(); m < time.April || m > time.September {
		t.Errorf("DefaultStart %v: month %v, want one far from a year's ends and from daylight saving changes", s, m)
	}
	if d := s.Day(); d < 3 || d > 26 {
		t.Errorf("DefaultStart %v: day %d, want one far from a month's ends", s, d)
	}
	if w := s.Weekday(); w == time.Saturday || w == time.Sunday || w == time.Monday {
		t.Errorf("DefaultStart %v is a %v, want a weekday in a week's middle", s, w)
	}
	if h := s.Hour(); h < 9 || h > 17 {
		t.Errorf("DefaultStart %v: hour %d, want working hours'", s, h)
	}
	if s.Minute() == 0 || s.Second() == 0 {
		t.Errorf("DefaultStart %v is on a whole minute or hour", s)
	}
	if ns := s.Nanosecond(); ns%int(time.Microsecond) == 0 {
		t.Errorf("DefaultStart %v: nanoseconds %d, want a reading's, not a whole microsecond", s, ns)
	}
}
