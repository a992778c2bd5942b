package statement

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/shopspring/decimal"
)

// errAmbiguousSeparator is an amount such as 1,234 or 1.234 in a file whose other
// amounts have not told which separator is the decimal one.
var errAmbiguousSeparator = errors.New("ambiguous decimal separator")

// isGroupSpace reports whether r is a space that groups thousands (1 234,56): a space,
// a no-break space, a narrow no-break space, a thin space.
func isGroupSpace(r rune) bool {
	return r == ' ' || r == '\u00a0' || r == '\u202f' || r == '\u2009'
}

func isApostrophe(r rune) bool { return r == '\'' || r == '\u2019' }

// amountText is an amount's text with its sign and currency taken off.
type amountText struct {
	negative bool
	body     string // digits, '.', ',', and grouping spaces and apostrophes
}

// splitAmount takes the sign, parentheses and currency symbols or codes off s:
// "-1,234.56", "(12.00)", "12.00-", "$ 1 234,56", "-€12", "12.00 MXN", "+5".
func splitAmount(s string) (amountText, error) {
	s = strings.TrimFunc(s, unicode.IsSpace)
	var a amountText
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		a.negative = true
		s = strings.TrimFunc(s[1:len(s)-1], unicode.IsSpace)
	}
	signs := 0
	for range 4 {
		before := s
		s = strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Sc, r) })
		if len(s) > 3 && isCurrencyCode(s[:3]) {
			s = s[3:]
		}
		if len(s) > 3 && isCurrencyCode(s[len(s)-3:]) {
			s = s[:len(s)-3]
		}
		s = strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Sc, r) })
		switch {
		case strings.HasPrefix(s, "-"), strings.HasPrefix(s, "\u2212"):
			a.negative = !a.negative
			s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "\u2212")
			signs++
		case strings.HasPrefix(s, "+"):
			s = s[1:]
			signs++
		case strings.HasSuffix(s, "-"):
			a.negative = !a.negative
			s = s[:len(s)-1]
			signs++
		}
		if s == before {
			break
		}
	}
	if signs > 1 || s == "" {
		return a, errors.New("not an amount")
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9') && r != '.' && r != ',' && !isGroupSpace(r) && !isApostrophe(r) {
			return a, errors.New("not an amount")
		}
	}
	a.body = s
	return a, nil
}

func isCurrencyCode(s string) bool {
	for i := range len(s) {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// decimalSeparatorOf tells the decimal separator from one amount's body, or 0 when the
// body does not tell (12, 1,234, 1.234).
func decimalSeparatorOf(body string) rune {
	dots, commas := strings.Count(body, "."), strings.Count(body, ",")
	grouped := strings.ContainsFunc(body, func(r rune) bool { return isGroupSpace(r) || isApostrophe(r) })
	switch {
	case dots > 0 && commas > 0:
		if strings.LastIndexByte(body, '.') > strings.LastIndexByte(body, ',') {
			return '.'
		}
		return ','
	case dots > 1:
		return ','
	case commas > 1:
		return '.'
	case dots == 1 && (grouped || len(body)-strings.IndexByte(body, '.')-1 != 3):
		return '.'
	case commas == 1 && (grouped || len(body)-strings.IndexByte(body, ',')-1 != 3):
		return ','
	}
	return 0
}

// parseAmount reads an amount whose decimal separator is sep ('.' or ','), or, with sep
// 0, one whose own text tells its separator. The scale is the text's: 12.50 stays 12.50.
func parseAmount(s string, sep rune) (decimal.Decimal, error) {
	a, err := splitAmount(s)
	if err != nil {
		return decimal.Decimal{}, err
	}
	if sep == 0 {
		sep = decimalSeparatorOf(a.body)
		if sep == 0 && strings.ContainsAny(a.body, ".,") {
			return decimal.Decimal{}, errAmbiguousSeparator
		}
	}
	intPart, frac := a.body, ""
	if i := strings.LastIndexByte(a.body, byte(sep)); sep != 0 && i >= 0 {
		intPart, frac = a.body[:i], a.body[i+1:]
		if frac == "" || strings.ContainsFunc(frac, func(r rune) bool { return r < '0' || r > '9' }) {
			return decimal.Decimal{}, errors.New("not an amount")
		}
	}
	digits, err := ungroup(intPart)
	if err != nil {
		return decimal.Decimal{}, err
	}
	if digits == "" {
		if frac == "" {
			return decimal.Decimal{}, errors.New("not an amount")
		}
		digits = "0"
	}
	text := digits
	if frac != "" {
		text += "." + frac
	}
	d, err := decimal.NewFromString(text)
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("not an amount: %w", err)
	}
	if a.negative {
		d = d.Neg()
	}
	return d, nil
}

// ungroup takes the thousands separators out of an amount's integer part, checking that
// they group by three (1.234.567, 1 234, 1'234).
func ungroup(s string) (string, error) {
	var groups []string
	var cur strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			cur.WriteRune(r)
			continue
		}
		groups = append(groups, cur.String())
		cur.Reset()
	}
	groups = append(groups, cur.String())
	if len(groups) == 1 {
		return groups[0], nil
	}
	for i, g := range groups {
		if (i == 0 && (len(g) < 1 || len(g) > 3)) || (i > 0 && len(g) != 3) {
			return "", errors.New("not an amount: its thousands are not grouped by three")
		}
	}
	return strings.Join(groups, ""), nil
}
