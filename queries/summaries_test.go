package queries

import (
	"testing"

	"github.com/finledger/finledger/domain"
)

// A range is read as the whole months within it and the days outside them, each day
// in exactly one part.
func TestSplitByMonths(t *testing.T) {
	for _, c := range []struct {
		from, to string
		months   [2]string // "" when none
		head     [2]string
		tail     [2]string
	}{
		{"2026-01-01", "2026-12-31", [2]string{"2026-01-01", "2026-12-01"}, [2]string{}, [2]string{}},
		{"2026-02-01", "2026-02-28", [2]string{"2026-02-01", "2026-02-01"}, [2]string{}, [2]string{}},
		{"2024-02-01", "2024-02-28", [2]string{}, [2]string{"2024-02-01", "2024-02-28"}, [2]string{}},
		{"2026-02-05", "2026-04-30", [2]string{"2026-03-01", "2026-04-01"}, [2]string{"2026-02-05", "2026-02-28"}, [2]string{}},
		{"2026-01-01", "2026-03-10", [2]string{"2026-01-01", "2026-02-01"}, [2]string{}, [2]string{"2026-03-01", "2026-03-10"}},
		{"2025-12-31", "2026-02-01", [2]string{"2026-01-01", "2026-01-01"}, [2]string{"2025-12-31", "2025-12-31"},
			[2]string{"2026-02-01", "2026-02-01"}},
		{"2026-03-01", "2026-03-01", [2]string{}, [2]string{"2026-03-01", "2026-03-01"}, [2]string{}},
		{"2026-03-05", "2026-04-20", [2]string{}, [2]string{"2026-03-05", "2026-04-20"}, [2]string{}},
	} {
		from, _ := domain.ParseDate(c.from)
		to, _ := domain.ParseDate(c.to)
		s := splitByMonths(from, to)
		part := func(a, b domain.Date) [2]string {
			if a.After(b) {
				return [2]string{}
			}
			return [2]string{a.String(), b.String()}
		}
		if got := part(s.firstMonth, s.lastMonth); got != c.months {
			t.Errorf("%s..%s: months %v, want %v", c.from, c.to, got, c.months)
		}
		if got := part(s.headFrom, s.headTo); got != c.head {
			t.Errorf("%s..%s: days before %v, want %v", c.from, c.to, got, c.head)
		}
		if got := part(s.tailFrom, s.tailTo); got != c.tail {
			t.Errorf("%s..%s: days after %v, want %v", c.from, c.to, got, c.tail)
		}
	}
}
