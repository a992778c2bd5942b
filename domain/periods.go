package domain

import (
	"errors"
	"time"
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

// The ledger's calendar: every date and date-time the API takes in lies from FirstDay to
// LastDay. A century of old records can be imported and a plan can run to the end of
// this one; a year such as 1 or 9999 is a slip or a probe, and a recurring payment
// dated in it would owe a hundred thousand cycles.
var (
	FirstDay = DateOf(1900, time.January, 1)
	LastDay  = DateOf(2099, time.December, 31)
)

// addMonths moves d by n months, keeping the anchor's day of month where the month has
// it and the month's last day where it does not (31 January + 1 month = 28 or 29
// February; + 2 months = 31 March).
func addMonths(anchor Date, n int) Date {
	y, m, day := anchor.Date()
	first := DateOf(y, m+time.Month(n), 1)
	last := first.AddDate(0, 1, -1).Day()
	return first.AddDays(min(day, last) - 1)
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
		n := day.Sub(anchor) / length
		from = anchor.AddDays(n * length)
		return from, from.AddDays(length - 1), true
	case PeriodSemiMonthly:
		y, m, d := day.Date()
		from, to = DateOf(y, m, 1), DateOf(y, m, 15)
		if d > 15 {
			from, to = DateOf(y, m, 16), DateOf(y, m+1, 0)
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
		return from, addMonths(anchor, (n+1)*step).AddDays(-1), true
	}
	return Date{}, Date{}, false
}

// NextPeriodStart returns the start of the period after the one containing day.
func NextPeriodStart(kind string, anchor, day Date) Date {
	_, to, ok := PeriodAt(kind, anchor, day)
	if !ok {
		return anchor
	}
	return to.AddDays(1)
}

// dateOrToday returns date, or when it is no date the business day today: the date of a
// movement recorded without one. A command that may default its date must say which
// day it was issued.
func dateOrToday(date, today Date) (Date, error) {
	if !date.IsZero() {
		return date, nil
	}
	if today.IsZero() {
		return Date{}, errors.New("domain: a movement without a date needs the day it was issued")
	}
	return today, nil
}
