package domain

import (
	"database/sql/driver"
	"fmt"
	"time"
	_ "time/tzdata" // business days are computed in America/Mexico_City on any machine
)

// Date is a calendar date, a day wherever it is, written "YYYY-MM-DD". Its zero value is
// no date, written as the empty string in JSON (as events stored it before Date was a
// type) and as NULL in a PostgreSQL date column. Dates compare with == and order with
// Before, After and Compare.
type Date struct {
	// n counts days from 0000-01-01, which is day 1, so that every date a four-digit
	// year can write (all that stored events can hold) is a non-zero n.
	n int32
}

// unixDay1 is 1 minus the days from 0000-01-01 to 1970-01-01.
const unixDay1 = 719529

// DateOf returns the date of year, month and day, normalised as time.Date does
// (31 April is 1 May).
func DateOf(year int, month time.Month, day int) Date {
	return DateAt(time.Date(year, month, day, 0, 0, 0, 0, time.UTC))
}

// DateAt returns t's calendar date in t's own location.
func DateAt(t time.Time) Date {
	y, m, d := t.Date()
	days := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / (24 * 60 * 60)
	return Date{n: int32(days + unixDay1)}
}

// ParseDate reads YYYY-MM-DD.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("date %q: %w", s, err)
	}
	return DateAt(t), nil
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

// BusinessDay returns the business day at t: its calendar date in America/Mexico_City.
func BusinessDay(t time.Time) Date { return DateAt(t.In(businessZone)) }

// IsZero reports whether d is no date.
func (d Date) IsZero() bool { return d.n == 0 }

// Time returns d at midnight UTC; the zero time for no date.
func (d Date) Time() time.Time {
	if d.n == 0 {
		return time.Time{}
	}
	return time.Unix(int64(d.n-unixDay1)*24*60*60, 0).UTC()
}

// String writes d as YYYY-MM-DD, and no date as "".
func (d Date) String() string {
	if d.n == 0 {
		return ""
	}
	return d.Time().Format(time.DateOnly)
}

// Date returns d's year, month and day.
func (d Date) Date() (year int, month time.Month, day int) { return d.Time().Date() }

// Year returns d's year.
func (d Date) Year() int { return d.Time().Year() }

// Month returns d's month.
func (d Date) Month() time.Month { return d.Time().Month() }

// Day returns d's day of the month.
func (d Date) Day() int { return d.Time().Day() }

// AddDays returns the date n days after d (before it for a negative n).
func (d Date) AddDays(n int) Date { return Date{n: d.n + int32(n)} }

// AddDate adds years, months and days to d, normalised as time.Time.AddDate does.
func (d Date) AddDate(years, months, days int) Date {
	return DateAt(d.Time().AddDate(years, months, days))
}

// Sub returns the days from e to d.
func (d Date) Sub(e Date) int { return int(d.n - e.n) }

// Before reports whether d is a day before e.
func (d Date) Before(e Date) bool { return d.n < e.n }

// After reports whether d is a day after e.
func (d Date) After(e Date) bool { return d.n > e.n }

// Compare returns -1, 0 or 1 as d is before, on or after e; no date comes first.
func (d Date) Compare(e Date) int {
	switch {
	case d.n < e.n:
		return -1
	case d.n > e.n:
		return 1
	}
	return 0
}

// LaterDate returns the later of a and b.
func LaterDate(a, b Date) Date {
	if a.After(b) {
		return a
	}
	return b
}

// MarshalText writes YYYY-MM-DD, or nothing for no date.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads YYYY-MM-DD, or nothing as no date.
func (d *Date) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*d = Date{}
		return nil
	}
	parsed, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = parsed
	return nil
}

// MarshalJSON writes "YYYY-MM-DD", and "" for no date, as the strings that dates were
// before they had a type.
func (d Date) MarshalJSON() ([]byte, error) { return []byte(`"` + d.String() + `"`), nil }

// UnmarshalJSON reads "YYYY-MM-DD", and "" as no date. A JSON null leaves d as it is,
// as it leaves a string.
func (d *Date) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return fmt.Errorf("date %s: not a string", b)
	}
	return d.UnmarshalText(b[1 : len(b)-1])
}

// Value writes d to a PostgreSQL date column: a time at midnight UTC, or NULL for no
// date.
func (d Date) Value() (driver.Value, error) {
	if d.n == 0 {
		return nil, nil
	}
	return d.Time(), nil
}

// Scan reads a PostgreSQL date (NULL as no date).
func (d *Date) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*d = Date{}
	case time.Time:
		*d = DateAt(v)
	case string:
		return d.UnmarshalText([]byte(v))
	case []byte:
		return d.UnmarshalText(v)
	default:
		return fmt.Errorf("domain: scan a date from %T", src)
	}
	return nil
}

// MonthStart returns the first day of d's month.
func (d Date) MonthStart() Date { return d.AddDays(1 - d.Day()) }

// Weekday returns d's day of the week.
func (d Date) Weekday() time.Weekday { return d.Time().Weekday() }

// MustParseDate reads YYYY-MM-DD and panics when it cannot: for dates written in code.
func MustParseDate(s string) Date {
	d, err := ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}
