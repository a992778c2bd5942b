package httpapi

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/finledger/finledger/commands"
	"github.com/finledger/finledger/internal/sealbox"
)

// FuzzParseBody feeds arbitrary bytes through the JSON parsing and every field reader
// of the transaction, incoming-transaction and wallet bodies: whatever comes in, the answer is a value or a
// 400-class error, never a panic or a server error.
func FuzzParseBody(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"type":"expense","amount":12.5,"date":"2026-03-01"}`, `{"amount":1e400}`, `{"amount":-0}`,
		`{"amount":"12"}`, `{"amount":"12.50"}`, `{"amount":"1e3"}`, `{"amount":"\u0031"}`, `{"toWalletId":"00000000-0000-0000-0000-000000000001","destinationWalletId":null}`,
		`{"name":"\u0000","balance":0.00001}`, `[1]`, `null`, `{"a":1}{"b":2}`, "\xff", `{"ids":["x",1,null]}`,
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
		transactionInput(b)
		walletInput(b, true)
		if v := b.amountOrText("amount"); v.Valid && !b.failed("amount") && !v.Value.IsPositive() {
			t.Fatalf("amount %s accepted", v.Value)
		}
		b.ids("ids", maxBulkIDs)
		b.enum("type", commands.TransactionTypes)
		if err := b.finish(); err != nil {
			if ae := toAPIError(err); ae.Status != http.StatusBadRequest || ae.Code != "VALIDATION_ERROR" {
				t.Fatalf("field error maps to %d %s", ae.Status, ae.Code)
			}
		}
	})
}

// FuzzTransactionFilter checks the listing's query parsing on arbitrary query strings.
func FuzzTransactionFilter(f *testing.F) {
	for _, seed := range []string{"", "page=2&pageSize=10", "q=taco&search=taco", "from=2026-01-01&to=2025-01-01", "pageSize=-1&page=99999999999999999999"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		values, err := url.ParseQuery(raw)
		if err != nil {
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
