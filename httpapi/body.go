package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
)

// maxBody is the largest request body accepted.
const maxBody = 1 << 20

// body is a JSON object being validated field by field, so that one answer lists every
// bad field rather than the first.
type body struct {
	raw    []byte
	fields map[string]json.RawMessage
	known  map[string]bool
	errs   []domain.FieldError
	// rule is the body's declaration, which finish checks it by; nil for a route that
	// takes no body.
	rule *bodyRule
}

// readBody reads and parses a JSON object body, to be checked by the declaration of
// the body its route takes. An empty body is an empty object.
func readBody(w http.ResponseWriter, r *http.Request) (*body, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, errTooLarge
		}
		return nil, errorf(http.StatusBadRequest, "INVALID_BODY", "the request body could not be read")
	}
	b, err := parseBody(data)
	if err != nil {
		return nil, err
	}
	if rt := routeFrom(r.Context()); rt != nil {
		b.rule = bodyRules[rt.Request]
	}
	return b, nil
}

func parseBody(data []byte) (*body, error) {
	b := &body{fields: map[string]json.RawMessage{}, known: map[string]bool{}}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		b.raw = []byte("{}")
		return b, nil
	}
	if !utf8.Valid(trimmed) {
		return nil, errorf(http.StatusBadRequest, "INVALID_JSON", "the request body is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(&b.fields); err != nil || b.fields == nil {
		msg := "the request body must be a JSON object"
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			msg = fmt.Sprintf("malformed JSON at byte %d: %v", syntax.Offset, syntax)
		}
		return nil, errorf(http.StatusBadRequest, "INVALID_JSON", msg)
	}
	if dec.More() {
		return nil, errorf(http.StatusBadRequest, "INVALID_JSON", "the request body holds more than one JSON value")
	}
	if problems := checkJSON(trimmed); len(problems) > 0 {
		return nil, domain.Invalid(problems...)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, trimmed); err != nil {
		return nil, errorf(http.StatusBadRequest, "INVALID_JSON", "malformed JSON")
	}
	b.raw = compact.Bytes()
	return b, nil
}

// jsonLevel is an object or array open where checkJSON has got to.
type jsonLevel struct {
	object bool
	atKey  bool            // in an object, the next string is a key
	key    string          // in an object, the key of the value that comes next
	index  int             // in an array, the index of the value that comes next
	keys   map[string]bool // in an object, the keys given so far
}

// jsonPath names the value that comes next in the innermost of levels: "name",
// "keys.auth", "rates[0].rate".
func jsonPath(levels []jsonLevel) string {
	var p strings.Builder
	for _, l := range levels {
		if !l.object {
			fmt.Fprintf(&p, "[%d]", l.index)
			continue
		}
		if p.Len() > 0 {
			p.WriteByte('.')
		}
		p.WriteString(l.key)
	}
	return p.String()
}

// checkJSON walks a well-formed JSON document, nested objects and arrays included, and
// reports what must be refused before any field is read: a string or key holding U+0000,
// which PostgreSQL stores in neither text nor jsonb, and a key given twice in one
// object, of which decoding would silently keep the last. It runs on every body, so it
// reads the bytes in one pass and decodes only keys and the strings that escape a NUL:
// the document was decoded before, so it is well-formed.
func checkJSON(data []byte) []domain.FieldError {
	var levels []jsonLevel
	var problems []domain.FieldError
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{', '[':
			levels = append(levels, jsonLevel{object: data[i] == '{', atKey: data[i] == '{'})
		case '}', ']':
			levels = levels[:len(levels)-1]
		case ',':
			if top := &levels[len(levels)-1]; top.object {
				top.atKey = true
			} else {
				top.index++
			}
		case '"':
			end := i + 1
			for data[end] != '"' {
				if data[end] == '\\' {
					end++
				}
				end++
			}
			quoted := data[i : end+1]
			i = end
			if len(levels) == 0 {
				continue
			}
			top := &levels[len(levels)-1]
			if !top.object || !top.atKey {
				if bytes.Contains(quoted, nulEscape) && strings.Contains(jsonText(quoted), "\x00") {
					problems = append(problems, domain.FieldError{Field: jsonPath(levels), Message: "must not hold the NUL character (\\u0000), which cannot be stored"})
				}
				continue
			}
			key := jsonText(quoted)
			top.key, top.atKey = strings.ReplaceAll(key, "\x00", `\u0000`), false
			switch {
			case strings.Contains(key, "\x00"):
				problems = append(problems, domain.FieldError{Field: jsonPath(levels), Message: "is a key holding the NUL character (\\u0000), which cannot be stored"})
			case top.keys[key]:
				problems = append(problems, domain.FieldError{Field: jsonPath(levels), Message: "is given more than once; send each key once"})
			}
			if top.keys == nil {
				top.keys = map[string]bool{}
			}
			top.keys[key] = true
		}
	}
	return problems
}

// nulEscape is how valid JSON writes U+0000, which it cannot hold as a raw byte.
var nulEscape = []byte(`\u0000`)

// jsonText returns the text that a well-formed JSON string, given with its quotes,
// stands for.
func jsonText(quoted []byte) string {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1])
	}
	var s string
	_ = json.Unmarshal(quoted, &s) // well-formed: the document was decoded before
	return s
}

func (b *body) fail(field, format string, args ...any) {
	b.errs = append(b.errs, domain.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

// value decodes a present, non-null field into v. It reports whether there was one.
func (b *body) value(name string, v any, typeName string) (set, valid bool) {
	b.known[name] = true
	raw, ok := b.fields[name]
	if !ok {
		return false, false
	}
	if string(raw) == "null" {
		return true, false
	}
	if err := json.Unmarshal(raw, v); err != nil {
		b.fail(name, "must be %s", typeName)
		return true, false
	}
	return true, true
}

// str reads a string field whose length in characters lies in [min, max].
func (b *body) str(name string, min, max int) domain.Nullable[string] {
	var s string
	set, valid := b.value(name, &s, "a string")
	if !valid {
		return domain.Nullable[string]{Set: set && !b.failed(name)}
	}
	if n := utf8.RuneCountInString(s); n < min || n > max {
		if min > 0 {
			b.fail(name, "must be %d to %d characters long", min, max)
		} else {
			b.fail(name, "must be at most %d characters long", max)
		}
	}
	return domain.Of(s)
}

// text reads a text field a person writes under the rule of every such field
// (domain.Text), and keeps it trimmed.
func (b *body) text(field string, rule domain.Text) domain.Nullable[string] {
	var s string
	set, valid := b.value(field, &s, "a string")
	if !valid {
		return domain.Nullable[string]{Set: set && !b.failed(field)}
	}
	s, problem := rule.Check(s)
	if problem != "" {
		b.fail(field, "%s", problem)
	}
	return domain.Of(s)
}

// pattern checks a present string field against re.
func (b *body) pattern(name string, v domain.Nullable[string], re *regexp.Regexp, rule string) {
	if v.Valid && !b.failed(name) && !re.MatchString(v.Value) {
		b.fail(name, "must match %s", rule)
	}
}

// enum reads a string field that must be one of values.
func (b *body) enum(name string, values []string) domain.Nullable[string] {
	var s string
	set, valid := b.value(name, &s, "a string")
	if !valid {
		return domain.Nullable[string]{Set: set && !b.failed(name)}
	}
	if !slices.Contains(values, s) {
		b.fail(name, "must be one of %s", strings.Join(values, ", "))
	}
	return domain.Of(s)
}

// boolean reads a boolean field.
func (b *body) boolean(name string) domain.Nullable[bool] {
	var v bool
	set, valid := b.value(name, &v, "a boolean")
	return domain.Nullable[bool]{Set: set && !b.failed(name), Valid: valid, Value: v}
}

// id reads a UUID field.
func (b *body) id(name string) domain.Nullable[uuid.UUID] {
	var s string
	set, valid := b.value(name, &s, "a UUID string")
	if !valid {
		return domain.Nullable[uuid.UUID]{Set: set && !b.failed(name)}
	}
	id, err := parseUUID(s)
	if err != nil {
		b.fail(name, "must be a UUID")
		return domain.Nullable[uuid.UUID]{}
	}
	return domain.Of(id)
}

// stringList reads an array of between min and max strings.
func (b *body) stringList(name string, min, max int) []string {
	var v []string
	_, valid := b.value(name, &v, "an array of strings")
	if !valid {
		return nil
	}
	if len(v) < min || len(v) > max {
		b.fail(name, "must hold %d to %d entries", min, max)
		return nil
	}
	return v
}

// ids reads an array of UUIDs with between 1 and max unique entries.
func (b *body) ids(name string, max int) []uuid.UUID {
	var raw []string
	_, valid := b.value(name, &raw, "an array of UUID strings")
	if !valid {
		return nil
	}
	if len(raw) == 0 || len(raw) > max {
		b.fail(name, "must hold 1 to %d ids", max)
		return nil
	}
	out := make([]uuid.UUID, 0, len(raw))
	seen := map[uuid.UUID]bool{}
	for i, s := range raw {
		id, err := parseUUID(s)
		if err != nil {
			b.fail(fmt.Sprintf("%s[%d]", name, i), "must be a UUID")
			continue
		}
		if seen[id] {
			b.fail(fmt.Sprintf("%s[%d]", name, i), "repeats an earlier id")
			continue
		}
		seen[id] = true
		out = append(out, id)
	}
	return out
}

// amount reads a JSON number exactly (never through float64) and checks it with the
// domain's amount rule.
func (b *body) amount(name string, positive bool) domain.Nullable[decimal.Decimal] {
	v := b.number(name)
	if v.Valid {
		if problem := domain.CheckAmount(v.Value, positive); problem != "" {
			b.fail(name, "%s", problem)
		}
	}
	return v
}

// signedDecimalText is a balance written as text: a sign, then an amount's digits.
var signedDecimalText = regexp.MustCompile(`^-?[0-9]{1,15}(\.[0-9]{1,4})?$`)

// balance reads a signed amount given as a JSON number or as a string holding one.
func (b *body) balance(name string) domain.Nullable[decimal.Decimal] {
	raw, ok := b.fields[name]
	if !ok || len(raw) == 0 || raw[0] != '"' {
		v := b.number(name)
		if v.Valid {
			if problem := domain.CheckAmount(v.Value.Abs(), false); problem != "" {
				b.fail(name, "%s", problem)
			}
		}
		return v
	}
	b.known[name] = true
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || !signedDecimalText.MatchString(s) {
		b.fail(name, "must be a number, or a string holding one such as \"-1234.56\", with at most %d decimal places", domain.MaxAmountScale)
		return domain.Nullable[decimal.Decimal]{}
	}
	return domain.Of(decimal.RequireFromString(s))
}

// number reads a JSON number exactly.
func (b *body) number(name string) domain.Nullable[decimal.Decimal] {
	b.known[name] = true
	raw, ok := b.fields[name]
	if !ok {
		return domain.Nullable[decimal.Decimal]{}
	}
	if string(raw) == "null" {
		return domain.Null[decimal.Decimal]()
	}
	d, err := parseNumber(raw)
	switch {
	case errors.Is(err, errNotNumber):
		b.fail(name, "must be a number")
		return domain.Nullable[decimal.Decimal]{}
	case err != nil:
		b.fail(name, "is out of range: its exponent lies beyond ±10000")
		return domain.Nullable[decimal.Decimal]{}
	}
	return domain.Of(d)
}

var errNotNumber = errors.New("not a number")

// parseNumber parses a JSON number token exactly. A number whose exponent lies beyond
// what the decimal type holds (10^±10000) is an error other than errNotNumber.
func parseNumber(raw json.RawMessage) (decimal.Decimal, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return decimal.Decimal{}, errNotNumber
	}
	num, ok := v.(json.Number)
	if !ok {
		return decimal.Decimal{}, errNotNumber
	}
	d, err := decimal.NewFromString(num.String())
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("number %s: %w", num, err)
	}
	return d, nil
}

// date reads a calendar date written YYYY-MM-DD.
func (b *body) date(name string) domain.Nullable[domain.Date] {
	var s string
	set, valid := b.value(name, &s, "a string")
	if !valid {
		return domain.Nullable[domain.Date]{Set: set && !b.failed(name)}
	}
	d, err := parseDate(s)
	if err != nil {
		b.fail(name, "%s", dateRule)
	}
	return domain.Of(domain.DateAt(d))
}

// timestamp reads an RFC 3339 date-time.
func (b *body) timestamp(name string) domain.Nullable[time.Time] {
	v := b.str(name, 1, 64)
	if !v.Valid || b.failed(name) {
		return domain.Nullable[time.Time]{Set: v.Set}
	}
	t, err := parseDateTime(v.Value)
	if err != nil {
		b.fail(name, "%s", dateTimeRule)
		return domain.Nullable[time.Time]{}
	}
	return domain.Of(t)
}

// link reads an absolute http(s) URL by its rule, shown to people like any text they
// write (domain.Text).
func (b *body) link(f textField) domain.Nullable[string] {
	v := f.read(b)
	if v.Valid && !b.failed(f.Name) {
		u, err := url.Parse(v.Value)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			b.fail(f.Name, "must be an absolute http or https URL")
		}
	}
	return v
}

// object reads a nested JSON object field: read validates its fields on a body of their
// own, checked by the object's declaration, and their errors, unknown fields included,
// are reported here as "name.field". It reports whether the field held an object (not
// missing, null or another type); read runs only then.
func (b *body) object(name string, rule *bodyRule, read func(*body)) bool {
	nested := &body{known: map[string]bool{}, rule: rule}
	_, valid := b.value(name, &nested.fields, "an object")
	if !valid || nested.fields == nil {
		return false
	}
	nested.raw = b.fields[name]
	read(nested)
	if err := nested.finish(); err != nil {
		for _, e := range nested.errs {
			b.fail(name+"."+e.Field, "%s", e.Message)
		}
	}
	return true
}

func (b *body) failed(name string) bool {
	for _, e := range b.errs {
		if e.Field == name {
			return true
		}
	}
	return false
}

// alias merges two names of one field; giving both with different values is an error.
func aliasOf[T comparable](b *body, name string, a domain.Nullable[T], other string, c domain.Nullable[T]) domain.Nullable[T] {
	if a.Set && c.Set && (a.Valid != c.Valid || a.Value != c.Value) {
		b.fail(other, "conflicts with %s; they are aliases", name)
	}
	if a.Set {
		return a
	}
	return c
}

// finish reports what the body's declaration refuses (bodyRule.check) and unknown
// fields, and returns every field error found. It may run again: a field refused once
// is not refused twice.
func (b *body) finish() error {
	if b.rule != nil {
		b.rule.check(b)
	}
	var unknown []string
	for name := range b.fields {
		if !b.known[name] {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	for _, name := range unknown {
		b.fail(name, "is not a known field")
	}
	if len(b.errs) > 0 {
		return domain.Invalid(b.errs...)
	}
	return nil
}

// checkQuery reports the query parameters that cannot be stored or searched for: a name
// or value holding U+0000 or bytes that are not UTF-8. PostgreSQL refuses both in text.
func checkQuery(values url.Values) []domain.FieldError {
	var problems []domain.FieldError
	for _, name := range slices.Sorted(maps.Keys(values)) {
		field := strings.ToValidUTF8(strings.ReplaceAll(name, "\x00", `\u0000`), "\uFFFD")
		if field != name {
			problems = append(problems, domain.FieldError{Field: field, Message: "is a parameter name holding the NUL character or bytes that are not UTF-8"})
			continue
		}
		for _, v := range values[name] {
			if strings.Contains(v, "\x00") || !utf8.ValidString(v) {
				problems = append(problems, domain.FieldError{Field: name, Message: "must be UTF-8 text without the NUL character (%00)"})
				break
			}
		}
	}
	return problems
}

// refuseUnstorableQuery answers 400 for a request whose query string checkQuery refuses,
// before any handler reads it.
func refuseUnstorableQuery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if problems := checkQuery(r.URL.Query()); len(problems) > 0 {
			writeError(w, r, domain.Invalid(problems...))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// pathID reads a UUID path parameter.
func pathID(r *http.Request, name string) (uuid.UUID, error) {
	id, err := parseUUID(chi.URLParam(r, name))
	if err != nil {
		return uuid.Nil, domain.InvalidField(name, "must be a UUID")
	}
	return id, nil
}

// newID returns a fresh, time-ordered record id.
func newID() uuid.UUID { return uuid.Must(uuid.NewV7()) }

// parseUUID accepts only the canonical 36-character form.
func parseUUID(s string) (uuid.UUID, error) {
	if len(s) != 36 {
		return uuid.Nil, errors.New("not a canonical UUID")
	}
	return uuid.Parse(s)
}

// Every date, month and date-time the API reads lies within the ledger's calendar,
// domain.FirstDay to domain.LastDay (in UTC for a date-time): the same bounds on
// every instance and every day, so a retried or queued request never changes verdict.
var (
	calendarBounds = "from " + domain.FirstDay.String() + " to " + domain.LastDay.String()
	dateRule       = "must be a date written YYYY-MM-DD, " + calendarBounds
	monthBounds    = "from " + domain.FirstDay.Time().Format(monthLayout) + " to " + domain.LastDay.Time().Format(monthLayout)
	monthRule      = "must be a month written YYYY-MM, " + monthBounds
	dateTimeRule   = "must be a date-time such as 2026-12-31T23:59:59Z, " + calendarBounds + " in UTC"
)

const monthLayout = "2006-01"

// errOutsideCalendar is a well-formed date outside the ledger's calendar.
var errOutsideCalendar = errors.New("outside the ledger's calendar")

// inCalendar reports whether the instant t falls on a day of the ledger's calendar.
func inCalendar(t time.Time) bool {
	return !t.Before(domain.FirstDay.Time()) && t.Before(domain.LastDay.AddDays(1).Time())
}

func parseDate(s string) (time.Time, error) {
	if len(s) != len(time.DateOnly) {
		return time.Time{}, errors.New("not YYYY-MM-DD")
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, err
	}
	if !inCalendar(d) {
		return time.Time{}, errOutsideCalendar
	}
	return d, nil
}

// parseMonth reads YYYY-MM as the month's first day.
func parseMonth(s string) (time.Time, error) {
	if len(s) != len(monthLayout) {
		return time.Time{}, errors.New("not YYYY-MM")
	}
	m, err := time.Parse(monthLayout, s)
	if err != nil {
		return time.Time{}, err
	}
	if !inCalendar(m) {
		return time.Time{}, errOutsideCalendar
	}
	return m, nil
}

// parseDateTime reads an RFC 3339 date-time whose UTC time lies within the ledger's
// calendar (an offset can carry 2099-12-31T23:00:00-05:00 into 2100).
func parseDateTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, err
	}
	if !inCalendar(t.UTC()) {
		return time.Time{}, errOutsideCalendar
	}
	return t, nil
}

// orDefault returns the field's value, or fallback when it is absent or null.
func orDefault[T any](n domain.Nullable[T], fallback T) T {
	if n.Valid {
		return n.Value
	}
	return fallback
}
