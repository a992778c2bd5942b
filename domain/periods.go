package domain

import (
	"errors"
	"fmt"
	"time"
	_ "time/tzdata" // business days are computed in America/Mexico_City on any machine
)

// Period names shared by budgets and recurring payments.
const (
	PeriodWeekly      = "weekly"
	PeriodBiweekly    = "biweekly"
	PeriodSemiMonthly = "semi_monthly"
	PeriodMonthly     = "monthly"
	PeriodQuarterly   = "quarterly"
	PeriodYearly      = "yearly"
)

// Periods lists the period names.
var Periods = []string{PeriodWeekly, PeriodBiweekly, PeriodSemiMonthly, PeriodMonthly, PeriodQuarterly, PeriodYearly}

// Date is a calendar date: a time at midnight UTC standing for a day wherever it is.
// Business days are decided in America/Mexico_City and then handled as Dates.
type Date = time.Time

// The ledger's calendar: every date and date-time the API takes in lies from FirstDay to
// LastDay. A century of old records can be imported and a plan can run to the end of
// this one; a year such as 1 or 9999 is a slip or a probe, and a recurring payment
// dated in it would owe a hundred thousand cycles.
var (
	FirstDay = time.Date(1900, time.January, 1, 0, 0, 0, 0, time.UTC)
	LastDay  = time.Date(2099, time.December, 31, 0, 0, 0, 0, time.UTC)
)

// ParseDate reads YYYY-MM-DD.
func ParseDate(s string) (Date, error) {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("date %q: %w", s, err)
	}
	return d, nil
}

// businessZone is where a day is decided: "today" for a transaction recorded without a
// date, a budget's current period, a recurring payment falling due.
var businessZone = func() *time.Location {
	loc, err := time.LoadLocation("America/Mexico_City")
	if err != nil {
		panic(fmt.Sprintf("domain: load the business time zone: %v", err))
	}
	return loc
}()

// BusinessDay returns the business day at t: its calendar date in businessZone.
func BusinessDay(t time.Time) Date {
	y, m, d := t.In(businessZone).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// addMonths moves d by n months, keeping the anchor's day of month where the month has
// it and the month's last day where it does not (31 January + 1 month = 28 or 29
// February; + 2 months = 31 March).
func addMonths(anchor Date, n int) Date {
	y, m, day := anchor.Date()
	first := time.Date(y, m+time.Month(n), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	return first.AddDate(0, 0, min(day, last)-1)
}

// PeriodAt returns the bounds (both inclusive) of the period of the given kind, anchored
// at anchor, that contains day. Periods repeat from the anchor: weekly and biweekly
// every 7 and 14 days, monthly, quarterly and yearly on the anchor's day of month
// (clamped to short months), and semi_monthly on the calendar halves 1-15 and
// 16-end, the first one starting at the anchor. ok is false before the anchor.
func PeriodAt(kind string, anchor, day Date) (from, to Date, ok bool) {
	if day.Before(anchor) {
		return Date{}, Date{}, false
	}
	switch kind {
	case PeriodWeekly, PeriodBiweekly:
		length := 7
		if kind == PeriodBiweekly {
			length = 14
		}
		// Days from the anchor, counted in seconds: a time.Duration holds 292 years at
		// most, and an item recorded before dates were bounded may span more.
		n := int((day.Unix()-anchor.Unix())/(24*60*60)) / length
		from = anchor.AddDate(0, 0, n*length)
		return from, from.AddDate(0, 0, length-1), true
	case PeriodSemiMonthly:
		y, m, d := day.Date()
		from, to = time.Date(y, m, 1, 0, 0, 0, 0, time.UTC), time.Date(y, m, 15, 0, 0, 0, 0, time.UTC)
		if d > 15 {
			from, to = time.Date(y, m, 16, 0, 0, 0, 0, time.UTC), time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC)
		}
		if from.Before(anchor) {
			from = anchor
		}
		return from, to, true
	case PeriodMonthly, PeriodQuarterly, PeriodYearly:
		step := map[string]int{PeriodMonthly: 1, PeriodQuarterly: 3, PeriodYearly: 12}[kind]
		months := (day.Year()-anchor.Year())*12 + int(day.Month()) - int(anchor.Month())
		n := months / step
		from = addMonths(anchor, n*step)
		if from.After(day) {
			n--
			from = addMonths(anchor, n*step)
		}
		return from, addMonths(anchor, (n+1)*step).AddDate(0, 0, -1), true
	}
	return Date{}, Date{}, false
}

// NextPeriodStart returns the start of the period after the one containing day.
func NextPeriodStart(kind string, anchor, day Date) Date {
	_, to, ok := PeriodAt(kind, anchor, day)
	if !ok {
		return anchor
	}
	return to.AddDate(0, 0, 1)
}

// dateOrToday returns date, or when it is empty the business day today: the date of a
// movement recorded without one. A command that may default its date must say which
// day it was issued.
func dateOrToday(date string, today Date) (string, error) {
	if date != "" {
		return date, nil
	}
	if today.IsZero() {
		return "", errors.New("domain: a movement without a date needs the day it was issued")
	}
	return today.Format(time.DateOnly), nil
}
