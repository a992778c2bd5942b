package domain

import (
	"testing"
	"time"
)

func d(s string) Date { return MustParseDate(s) }

func TestPeriodAt(t *testing.T) {
	cases := []struct {
		kind, anchor, day, from, to string
	}{
		{PeriodWeekly, "2026-03-02", "2026-03-02", "2026-03-02", "2026-03-08"},
		{PeriodWeekly, "2026-03-02", "2026-03-08", "2026-03-02", "2026-03-08"},
		{PeriodWeekly, "2026-03-02", "2026-03-09", "2026-03-09", "2026-03-15"},
		{PeriodWeekly, "2026-12-28", "2027-01-03", "2026-12-28", "2027-01-03"},
		{PeriodBiweekly, "2026-01-05", "2026-01-19", "2026-01-19", "2026-02-01"},
		{PeriodBiweekly, "2026-01-05", "2026-01-18", "2026-01-05", "2026-01-18"},
		{PeriodSemiMonthly, "2026-01-01", "2026-02-15", "2026-02-01", "2026-02-15"},
		{PeriodSemiMonthly, "2026-01-01", "2026-02-16", "2026-02-16", "2026-02-28"},
		{PeriodSemiMonthly, "2024-01-01", "2024-02-20", "2024-02-16", "2024-02-29"},
		{PeriodSemiMonthly, "2026-03-10", "2026-03-12", "2026-03-10", "2026-03-15"},
		{PeriodSemiMonthly, "2026-01-01", "2026-12-31", "2026-12-16", "2026-12-31"},
		{PeriodMonthly, "2026-01-15", "2026-02-14", "2026-01-15", "2026-02-14"},
		{PeriodMonthly, "2026-01-15", "2026-02-15", "2026-02-15", "2026-03-14"},
		{PeriodMonthly, "2026-01-31", "2026-02-27", "2026-01-31", "2026-02-27"},
		{PeriodMonthly, "2026-01-31", "2026-02-28", "2026-02-28", "2026-03-30"},
		{PeriodMonthly, "2026-01-31", "2026-03-31", "2026-03-31", "2026-04-29"},
		{PeriodMonthly, "2024-01-31", "2024-02-29", "2024-02-29", "2024-03-30"},
		{PeriodMonthly, "2026-01-01", "2026-12-31", "2026-12-01", "2026-12-31"},
		{PeriodMonthly, "2025-12-01", "2026-01-01", "2026-01-01", "2026-01-31"},
		{PeriodQuarterly, "2026-01-01", "2026-03-31", "2026-01-01", "2026-03-31"},
		{PeriodQuarterly, "2026-01-01", "2026-04-01", "2026-04-01", "2026-06-30"},
		{PeriodQuarterly, "2025-11-30", "2026-02-28", "2026-02-28", "2026-05-29"},
		{PeriodYearly, "2024-02-29", "2025-02-28", "2025-02-28", "2026-02-27"},
		{PeriodYearly, "2024-02-29", "2028-03-01", "2028-02-29", "2029-02-27"},
		{PeriodYearly, "2026-06-01", "2027-05-31", "2026-06-01", "2027-05-31"},
	}
	for _, c := range cases {
		from, to, ok := PeriodAt(c.kind, d(c.anchor), d(c.day))
		if !ok || from != d(c.from) || to != d(c.to) {
			t.Errorf("%s from %s on %s = %s..%s (%v), want %s..%s", c.kind, c.anchor, c.day,
				from, to, ok, c.from, c.to)
		}
	}
	for _, kind := range Periods {
		if _, _, ok := PeriodAt(kind, d("2026-03-01"), d("2026-02-28")); ok {
			t.Errorf("%s: a day before the anchor has a period", kind)
		}
		// Consecutive periods tile the calendar: no gap, no overlap, over four years.
		day := d("2024-01-31")
		_, prevTo, _ := PeriodAt(kind, day, day)
		for i := 0; i < 200; i++ {
			from, to, _ := PeriodAt(kind, d("2024-01-31"), prevTo.AddDate(0, 0, 1))
			if from != prevTo.AddDate(0, 0, 1) || to.Before(from) {
				t.Fatalf("%s: period after %s is %s..%s", kind, prevTo, from, to)
			}
			prevTo = to
		}
	}
	if got := NextPeriodStart(PeriodMonthly, d("2026-01-31"), d("2026-01-31")); got != d("2026-02-28") {
		t.Errorf("next monthly after 31 January: %s", got)
	}
}

func TestBusinessDayIsMexicoCitys(t *testing.T) {
	cases := []struct {
		utc  time.Time
		want string
	}{
		{time.Date(2026, 3, 11, 3, 0, 0, 0, time.UTC), "2026-03-10"}, // UTC-6 all year since 2022
		{time.Date(2026, 3, 11, 6, 0, 0, 0, time.UTC), "2026-03-11"}, // midnight in Mexico City
		{time.Date(2022, 6, 1, 4, 30, 0, 0, time.UTC), "2022-05-31"}, // daylight saving time (UTC-5) still applied in 2022
		{time.Date(2022, 6, 1, 5, 30, 0, 0, time.UTC), "2022-06-01"},
		{time.Date(2027, 1, 1, 5, 59, 0, 0, time.UTC), "2026-12-31"},
	}
	for _, c := range cases {
		if got := BusinessDay(c.utc).String(); got != c.want {
			t.Errorf("BusinessDay(%s) = %s, want %s", c.utc, got, c.want)
		}
	}
}
