package httpapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/internal/sealbox"
)

// FuzzParseBody feeds arbitrary bytes through the JSON parsing and every field reader
// of the transaction, incoming-transaction and wallet bodies: whatever comes in, the answer is a value or a
// 400-class error, never a panic or a server error; and a body that is accepted holds
// no U+0000 and no key twice in one object, at any depth.
func FuzzParseBody(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"type":"expense","amount":12.5,"date":"2026-03-01"}`, `{"amount":1e400}`, `{"amount":-0}`,
		`{"amount":"12"}`, `{"amount":"12.50"}`, `{"amount":"1e3"}`, `{"amount":"\u0031"}`, `{"toWalletId":"00000000-0000-0000-0000-000000000001","destinationWalletId":null}`,
		`{"name":"\u0000","balance":0.00001}`, `[1]`, `null`, `{"a":1}{"b":2}`, "\xff", `{"ids":["x",1,null]}`,
		`{"name":"a","name":"b"}`, `{"name":"a","n\u0061me":"b"}`, `{"keys":{"auth":"a","auth":"b"}}`, `{"rates":[{"rate":1},{"rate":1,"rate":2}]}`,
		`{"na\u0000me":"x"}`, `{"events":["a","\u0000"]}`, `{"keys":{"p256dh":"\u0000"}}`, `{"name":"\\u0000"}`, `{"date":"0000-01-01"}`,
		`{"amount":1e99999}`, `{"date":"10000-01-01"}`, `{"name":"  "}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := parseBody(data)
		if err != nil {
			if ae := toAPIError(err); ae.Status != http.StatusBadRequest {
				t.Fatalf("parse error maps to %d", ae.Status)
			}
			return
		}
		var tree any
		dec := json.NewDecoder(bytes.NewReader(b.raw))
		dec.UseNumber()
		if err := dec.Decode(&tree); err != nil {
			t.Fatalf("accepted body does not decode: %v", err)
		}
		if holdsNUL(tree) {
			t.Fatalf("accepted body holds U+0000: %q", data)
		}
		if members, keys := colons(b.raw), keyCount(tree); members != keys {
			t.Fatalf("accepted body gives a key twice (%d members, %d keys): %q", members, keys, data)
		}
		if d := b.date("date"); d.Valid && !b.failed("date") && (d.Value.Before(domain.FirstDay) || d.Value.After(domain.LastDay)) {
			t.Fatalf("date %q accepted", d.Value)
		}
		transactionInput(b)
		walletInput(b)
		b.rule = bodyRules["TransactionCreate"]
		if v := b.amountOrText("amount"); v.Valid && !b.failed("amount") && !v.Value.IsPositive() {
			t.Fatalf("amount %s accepted", v.Value)
		}
		b.ids("ids", maxBulkIDs)
		b.enum("type", enum(domain.TransactionTypes...))
		if err := b.finish(); err != nil {
			if ae := toAPIError(err); ae.Status != http.StatusBadRequest || ae.Code != "VALIDATION_ERROR" {
				t.Fatalf("field error maps to %d %s", ae.Status, ae.Code)
			}
		}
	})
}

// colons counts the colons of a JSON document outside strings: one per object member.
func colons(doc []byte) int {
	n, inString, escaped := 0, false, false
	for _, c := range doc {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && c == ':':
			n++
		}
	}
	return n
}

// holdsNUL reports a string or key holding U+0000 in a decoded JSON value.
func holdsNUL(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.Contains(v, "\x00")
	case map[string]any:
		for k, e := range v {
			if strings.Contains(k, "\x00") || holdsNUL(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if holdsNUL(e) {
				return true
			}
		}
	}
	return false
}

// keyCount counts the keys of every object in a decoded JSON value.
func keyCount(v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		n += len(v)
		for _, e := range v {
			n += keyCount(e)
		}
	case []any:
		for _, e := range v {
			n += keyCount(e)
		}
	}
	return n
}

// FuzzTransactionFilter checks the listing's query parsing on arbitrary query strings:
// what the door lets through holds no NUL and is valid UTF-8.
func FuzzTransactionFilter(f *testing.F) {
	for _, seed := range []string{"", "page=2&pageSize=10", "q=taco&search=taco", "from=2026-01-01&to=2025-01-01", "pageSize=-1&page=99999999999999999999",
		"search=%00", "q=%ff", "from=0000-01-01", "%00=x"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		values, err := url.ParseQuery(raw)
		if err != nil || len(checkQuery(values)) > 0 {
			return
		}
		filter, err := transactionFilter(values)
		if err != nil {
			if ae := toAPIError(err); ae.Status != http.StatusBadRequest {
				t.Fatalf("filter error maps to %d", ae.Status)
			}
			return
		}
		if filter.Limit < 1 || filter.Limit > maxPageSize || filter.Offset < 0 {
			t.Fatalf("limit %d offset %d", filter.Limit, filter.Offset)
		}
		if strings.Contains(filter.Search, "\x00") || !utf8.ValidString(filter.Search) {
			t.Fatalf("search %q", filter.Search)
		}
		if filter.From != nil && filter.From.Year() < 1 {
			t.Fatalf("from %v", filter.From)
		}
	})
}

// FuzzRealtimeToken feeds arbitrary tokens to the realtime stream's check: only a
// token this server sealed opens, and nothing panics.
func FuzzRealtimeToken(f *testing.F) {
	box, err := sealbox.New([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		f.Fatal(err)
	}
	now := time.Date(2026, 3, 10, 18, 0, 0, 0, time.UTC)
	s := &Server{box: box, now: func() time.Time { return now }}
	valid := base64.RawURLEncoding.EncodeToString(box.Seal([]byte(`{"u":"00000000-0000-0000-0000-000000000001","w":"00000000-0000-0000-0000-000000000002","e":1773169200}`), realtimeOwner))
	for _, seed := range []string{"", "abc", valid, valid[:len(valid)-1], valid + "A", "====", strings.Repeat("A", 600)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, token string) {
		c, err := s.openRealtimeToken(token)
		if err != nil {
			if toAPIError(err).Status != http.StatusUnauthorized {
				t.Fatalf("error %v", err)
			}
			return
		}
		// Only what was sealed opens (each run seals the seed afresh, so compare claims).
		if c.UserID.String() != "00000000-0000-0000-0000-000000000001" || c.WorkspaceID.String() != "00000000-0000-0000-0000-000000000002" {
			t.Fatalf("token %q opened: %+v", token, c)
		}
	})
}
