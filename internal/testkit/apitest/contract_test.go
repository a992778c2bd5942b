package apitest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/finledger/finledger/httpapi"
)

// The contract check reports each kind of difference between an exchange and the
// document, and lets a malformed request through when its answer is a documented 4xx.
func TestContractCheckReportsDifferences(t *testing.T) {
	const wallet = `{"id":"00000000-0000-0000-0000-000000000001","name":"Cash","description":null,"type":"cash","currency":"MXN",` +
		`"cardColor":"#111827","balance":0,"initialBalance":0,"clabe":null,"provider":null,"isDefault":false,"archived":false,"reconciledThrough":null,"reconciledBalance":null,` +
		`"createdAt":"2026-03-10T18:00:00Z","updatedAt":"2026-03-10T18:00:00Z"}`
	answer := func(status int, contentType, body string, headers ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api/openapi.json" {
				_, _ = w.Write(httpapi.OpenAPIDocument())
				return
			}
			_, _ = io.ReadAll(r.Body)
			w.Header().Set("X-Request-Id", "req_1")
			w.Header().Set("Content-Type", contentType)
			for i := 0; i+1 < len(headers); i += 2 {
				w.Header().Set(headers[i], headers[i+1])
			}
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		}
	}
	invalid := `{"error":{"code":"VALIDATION_ERROR","message":"bad","details":[{"field":"bogus","message":"is not a known field"}],"requestId":"req_1"}}`
	cases := []struct {
		name, method, path, body string
		handler                  http.HandlerFunc
		want                     string // "" for no difference
	}{
		{"documented", "GET", "/api/wallets", "", answer(200, "application/json", `{"wallets":[`+wallet+`]}`), ""},
		{"undocumented field", "GET", "/api/wallets", "", answer(200, "application/json", `{"wallets":[`+strings.Replace(wallet, `"id"`, `"extra":1,"id"`, 1)+`]}`), "extra"},
		{"missing required field", "GET", "/api/wallets", "", answer(200, "application/json", `{"wallets":[`+strings.Replace(wallet, `"archived":false,`, "", 1)+`]}`), "archived"},
		{"undocumented status", "GET", "/api/wallets", "", answer(418, "application/json", `{"wallets":[]}`), "418"},
		{"undocumented header", "GET", "/api/wallets", "", answer(200, "application/json", `{"wallets":[]}`, "X-Extra", "1"), "X-Extra"},
		{"undocumented content type", "GET", "/api/wallets", "", answer(200, "text/plain", "wallets"), "text/plain"},
		{"undocumented route", "GET", "/api/nothing", "", answer(200, "application/json", `{}`), "undocumented route"},
		{"unknown route answered 404", "GET", "/api/nothing", "", answer(404, "application/json", `{"error":{"code":"NOT_FOUND","message":"no such route","requestId":"req_1"}}`), ""},
		{"malformed request refused", "POST", "/api/wallets", `{"name":"Cash","bogus":1}`, answer(400, "application/json", invalid), ""},
		{"malformed request carried out", "POST", "/api/wallets", `{"name":"Cash","bogus":1}`, answer(200, "application/json", `{"wallet":`+wallet+`}`), "carried out"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checker, err := loadContract(c.handler)
			if err != nil {
				t.Fatal(err)
			}
			log := &contractLog{}
			srv := httptest.NewServer(checkWith(checker, log, c.handler))
			defer srv.Close()
			req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
			req.Header.Set("Authorization", "Bearer token")
			if c.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			srv.Close()
			problems := strings.Join(log.report(), "\n")
			switch {
			case c.want == "" && problems != "":
				t.Errorf("reported %s", problems)
			case c.want != "" && !strings.Contains(problems, c.want):
				t.Errorf("reported %q, want a problem naming %q", problems, c.want)
			}
		})
	}
}
