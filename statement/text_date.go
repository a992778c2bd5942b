package statement

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/finledger/finledger/domain"
)

// DateOrder is the order of day and month in dates written with numbers only and the
// year last (03/04/2024), which the text formats (CSV, QIF) do not state.
type DateOrder string

// The orders of day and month. The zero value is no order given: the reader decides it
// from the file, or asks.
const (
	DateOrderUnknown DateOrder = ""
	DateOrderDMY     DateOrder = "dmy" // 31/12/2024
	DateOrderMDY     DateOrder = "mdy" // 12/31/2024
)

func (o DateOrder) describe() string {
	switch o {
	case DateOrderDMY:
		return "day/month/year"
	case DateOrderMDY:
		return "month/day/year"
	}
	return "unknown"
}

// DateOrderRequiredError is a file whose dates put day and month in an order it does not
// reveal: every date of its first rows (up to 500), or of the whole file when it is
// shorter, could be read either way (all of 01/02/2024 … 12/12/2024). The caller asks the
// person and reads the file again with the order given.
type DateOrderRequiredError struct {
	Format Format
	// Line is where the first date that needs the order stands.
	Line int
	// Samples are some of the dates read, as the file writes them.
	Samples []string
}

func (e *DateOrderRequiredError) Error() string {
	return fmt.Sprintf("%s statement: line %d: the dates (such as %s) could be day/month/year or month/day/year: say which",
		e.Format, e.Line, strings.Join(e.Samples, ", "))
}

// dateForm is what a date's text says before an order is applied.
type dateForm struct {
	date domain.Date // when the text alone decides
	// a, b and year when the text is a/b/year, both a and b at most 12 or not.
	a, b, year int
	numeric    bool
}

// orders reports which orders can read f.
func (f dateForm) orders() (dmy, mdy bool) {
	if !f.numeric {
		return true, true
	}
	dmy = validDate(f.year, f.b, f.a)
	mdy = validDate(f.year, f.a, f.b)
	return dmy, mdy
}

func (f dateForm) needsOrder() bool {
	dmy, mdy := f.orders()
	return f.numeric && dmy && mdy && f.a != f.b
}

func (f dateForm) in(order DateOrder) (domain.Date, bool) {
	if !f.numeric {
		return f.date, true
	}
	if order == DateOrderUnknown {
		// Without an order only a date that one order alone can read, or that reads the
		// same both ways, is a date.
		switch dmy, mdy := f.orders(); {
		case dmy && !mdy:
			order = DateOrderDMY
		case mdy && !dmy:
			order = DateOrderMDY
		case f.a != f.b:
			return domain.Date{}, false
		}
	}
	day, month := f.a, f.b
	if order == DateOrderMDY {
		day, month = f.b, f.a
	}
	if !validDate(f.year, month, day) {
		return domain.Date{}, false
	}
	return domain.DateOf(f.year, time.Month(month), day), true
}

func validDate(year, month, day int) bool {
	if year < 1 || year > 9999 || month < 1 || month > 12 || day < 1 {
		return false
	}
	return day <= time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

var monthNames = map[string]int{
	"jan": 1, "january": 1, "ene": 1, "enero": 1,
	"feb": 2, "february": 2, "febrero": 2,
	"mar": 3, "march": 3, "marzo": 3,
	"apr": 4, "april": 4, "abr": 4, "abril": 4,
	"may": 5, "mayo": 5,
	"jun": 6, "june": 6, "junio": 6,
	"jul": 7, "july": 7, "julio": 7,
	"aug": 8, "august": 8, "ago": 8, "agosto": 8,
	"sep": 9, "sept": 9, "september": 9, "set": 9, "septiembre": 9, "setiembre": 9,
	"oct": 10, "october": 10, "octubre": 10,
	"nov": 11, "november": 11, "noviembre": 11,
	"dec": 12, "december": 12, "dic": 12, "diciembre": 12,
}

var errNotDate = errors.New("not a date")

// parseDateForm reads the date forms banks and Quicken write: 2024-12-31, 2024/12/31,
// 20241231, 31/12/2024, 12/31/2024, 31.12.2024, 31-12-24, 12/31'24, 1/ 2'05,
// 31 Dec 2024, Dec 31, 2024, 31-ene-2024, 31 de diciembre de 2024, optionally followed
// by a time of day. Two-digit years are 2000–2069 and 1970–1999, except after Quicken's
// apostrophe, which marks a year from 2000.
func parseDateForm(s string) (dateForm, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return dateForm{}, errNotDate
	}
	// A time of day after the date: "2024-12-31T10:00:00", "31/12/2024 10:32".
	if i := strings.IndexByte(s, 'T'); i == 10 && len(s) > 11 && s[11] >= '0' && s[11] <= '9' {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, ' '); i > 0 && strings.Contains(s[i:], ":") {
		s = strings.TrimSpace(s[:i])
	}
	apostrophe := strings.Contains(s, "'")
	// Split into runs of digits and runs of letters; anything else separates.
	var nums []string
	var words []string
	var sep []rune
	var cur []rune
	kind := 0 // 1 digits, 2 letters
	flush := func() {
		switch kind {
		case 1:
			nums = append(nums, string(cur))
		case 2:
			w := strings.ToLower(string(cur))
			if w != "de" && w != "del" && w != "of" {
				words = append(words, w)
			}
		}
		cur, kind = cur[:0], 0
	}
	for _, r := range s {
		k := 0
		switch {
		case r >= '0' && r <= '9':
			k = 1
		case unicode.IsLetter(r):
			k = 2
		}
		if k != kind {
			flush()
		}
		if k == 0 {
			if r != ' ' {
				sep = append(sep, r)
			}
			continue
		}
		kind = k
		cur = append(cur, r)
	}
	flush()
	if len(words) > 1 || len(nums) > 3 {
		return dateForm{}, errNotDate
	}
	atoi := func(d string) int {
		n, err := strconv.Atoi(d)
		if err != nil {
			return -1
		}
		return n
	}
	year := func(d string) int {
		n := atoi(d)
		switch {
		case len(d) == 4:
			return n
		case len(d) == 2 && (apostrophe || n < 70):
			return 2000 + n
		case len(d) == 2:
			return 1900 + n
		}
		return -1
	}
	whole := func(y, m, d int) (dateForm, error) {
		if !validDate(y, m, d) {
			return dateForm{}, errNotDate
		}
		return dateForm{date: domain.DateOf(y, time.Month(m), d)}, nil
	}
	if len(words) == 1 {
		m, ok := monthNames[strings.TrimSuffix(words[0], ".")]
		if !ok || len(nums) != 2 {
			return dateForm{}, errNotDate
		}
		if len(nums[0]) == 4 { // 2024 Dec 31
			return whole(year(nums[0]), m, atoi(nums[1]))
		}
		if len(nums[0]) > 2 || (len(nums[1]) != 2 && len(nums[1]) != 4) {
			return dateForm{}, errNotDate
		}
		return whole(year(nums[1]), m, atoi(nums[0]))
	}
	switch len(nums) {
	case 1:
		d := nums[0]
		if len(d) != 8 {
			return dateForm{}, errNotDate
		}
		return whole(atoi(d[:4]), atoi(d[4:6]), atoi(d[6:]))
	case 3:
	default:
		return dateForm{}, errNotDate
	}
	if len(sep) != 2 {
		return dateForm{}, errNotDate
	}
	for i, d := range nums[:2] {
		if len(d) > 2 && !(len(d) == 4 && i == 0) {
			return dateForm{}, errNotDate
		}
	}
	if len(nums[0]) == 4 { // year first: 2024-12-31, 2024/12/31, 2024.12.31
		if len(nums[2]) > 2 {
			return dateForm{}, errNotDate
		}
		return whole(atoi(nums[0]), atoi(nums[1]), atoi(nums[2]))
	}
	if len(nums[2]) != 4 && len(nums[2]) != 2 {
		return dateForm{}, errNotDate
	}
	f := dateForm{numeric: true, a: atoi(nums[0]), b: atoi(nums[1]), year: year(nums[2])}
	if dmy, mdy := f.orders(); !dmy && !mdy {
		return dateForm{}, errNotDate
	}
	return f, nil
}

// dateOrderOf decides the order from forms: the first form that one order alone can
// read decides it.
func dateOrderOf(forms []dateForm) DateOrder {
	for _, f := range forms {
		if !f.numeric {
			continue
		}
		switch dmy, mdy := f.orders(); {
		case dmy && !mdy:
			return DateOrderDMY
		case mdy && !dmy:
			return DateOrderMDY
		}
	}
	return DateOrderUnknown
}

// dateReading turns a date's text into a date under a file's order, with a message a
// person understands when it cannot.
type dateReading struct {
	format  Format
	order   DateOrder
	decided string // how the order was decided, for messages: "given", "from line 7"
	samples []string
}

func (d *dateReading) read(text string, line int) (domain.Date, error) {
	f, err := parseDateForm(text)
	if err != nil {
		return domain.Date{}, &Error{Format: d.format, Position: Position{Line: line},
			Message: fmt.Sprintf("%q is not a date", text)}
	}
	if d.order == DateOrderUnknown {
		if f.needsOrder() {
			return domain.Date{}, &DateOrderRequiredError{Format: d.format, Line: line, Samples: d.samplesWith(text)}
		}
		// The file's first rows held no date that needs an order; this one decides it
		// for the rows after.
		if o := dateOrderOf([]dateForm{f}); o != DateOrderUnknown {
			d.order = o
			d.decided = fmt.Sprintf("decided by the date %q on line %d", text, line)
		}
	}
	date, ok := f.in(d.order)
	if !ok {
		return domain.Date{}, &Error{Format: d.format, Position: Position{Line: line},
			Message: fmt.Sprintf("the date %q cannot be %s, the order of the file's dates (%s)", text, d.order.describe(), d.decided)}
	}
	return date, nil
}

func (d *dateReading) samplesWith(text string) []string {
	out := append([]string(nil), d.samples...)
	for _, s := range out {
		if s == text {
			return out
		}
	}
	if len(out) < 5 {
		out = append(out, text)
	}
	return out
}

// decide sets the order from the dates of a file's first rows, unless it was given; it
// asks for the order when they need one and none of them decides it.
func (d *dateReading) decide(texts []string, lines []int) error {
	if d.order != DateOrderUnknown {
		d.decided = "as given"
		return nil
	}
	first := 0
	for i, t := range texts {
		f, err := parseDateForm(t)
		if err != nil {
			continue
		}
		if f.needsOrder() && len(d.samples) < 5 {
			d.samples = append(d.samples, t)
			if first == 0 {
				first = lines[i]
			}
		}
		if o := dateOrderOf([]dateForm{f}); o != DateOrderUnknown {
			d.order = o
			d.decided = fmt.Sprintf("decided by the date %q on line %d", t, lines[i])
			return nil
		}
	}
	if first != 0 {
		return &DateOrderRequiredError{Format: d.format, Line: first, Samples: d.samples}
	}
	return nil
}
