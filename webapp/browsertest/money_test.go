package browsertest_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"
)

// typed is an amount typed into the quick form: recorded is the amount the API must
// hold after it ("" when the app must refuse it), says the words the refusal must hold
// (both readings of an ambiguous amount, or the limit broken).
type typed struct {
	text, recorded string
	says           []string
}

// typeAmounts types each amount into the overview's quick form and checks what the API
// recorded, or that the app refused it, saying why, and sent nothing.
func typeAmounts(t *testing.T, s *scene, amounts []typed) {
	t.Helper()
	for i, a := range amounts {
		description := fmt.Sprintf("typed %d %s", i, s.view.Name)
		s.waitFor("the quick form ready", `!document.querySelector('form.record button[type=submit]').disabled`)
		s.fill(`form.record`, map[string]string{"amount": a.text, "description": description})
		if a.recorded == "" {
			s.waitFor("the refusal of "+a.text, `document.querySelector('form.record [data-field=amount] .field-error').innerText !== ''`)
			got := s.text(`form.record [data-field=amount] .field-error`)
			for _, w := range a.says {
				if !strings.Contains(got, w) {
					t.Errorf("%q: the refusal %q does not say %q", a.text, got, w)
				}
			}
			if last := lastTransaction(t, s); last["description"] == description {
				t.Errorf("%q was refused, but recorded: %v", a.text, last)
			}
			continue
		}
		waitUntil(t, a.text+" recorded", func() bool { return lastTransaction(t, s)["description"] == description })
		last := lastTransaction(t, s)
		got, _ := decimal.NewFromString(fmt.Sprint(last["amount"]))
		if last["description"] != description || !got.Equal(decimal.RequireFromString(a.recorded)) {
			t.Errorf("%q: recorded %v, want %s", a.text, last, a.recorded)
		}
	}
}

// openRecord opens the transactions page and its quick form, which live updates leave
// as it is.
func openRecord(s *scene, heading string) {
	s.t.Helper()
	s.open("/app/transactions", heading)
	s.do(chromedp.Click(`main details summary`))
}

func lastTransaction(t *testing.T, s *scene) map[string]any {
	t.Helper()
	list := s.api.Get("/api/transactions?pageSize=1").List("transactions")
	if len(list) == 0 {
		return map[string]any{}
	}
	return list[0]
}

// preview types an amount into the quick form without sending it and returns the
// amount shown beside it.
func preview(s *scene, text string) string {
	s.t.Helper()
	data, _ := json.Marshal(text)
	var shown string
	s.eval(fmt.Sprintf(`(() => { const el = document.querySelector('form.record [name=amount]'); el.value = %s;
		el.dispatchEvent(new Event('input', { bubbles: true }));
		return document.querySelector('form.record [data-field=amount] output').innerText; })()`, data), &shown)
	return shown
}

// Money typed in is read by the person's locale, never reinterpreted silently: en and
// es-MX write 1,250.50, a comma-decimal locale (es-ES, set on the profile) 1.250,50;
// spaces group digits in any; what another locale would read otherwise is refused with
// both readings; the amount as it will be recorded shows beside the field. Each limit
// broken says which (the API's: 15 integer digits; the currency's: 2 decimals), a
// negative opening balance is refused as such, and the wallet name box takes what the
// API takes.
func TestAmountsAreReadByTheLocale(t *testing.T) {
	point := []typed{
		{"12,50", "", []string{"12.50", "1,250.00"}},
		{"1,250.50", "1250.50", nil},
		{"1.250,50", "", []string{"1,250.50"}},
		{"12.5", "12.5", nil},
		{"1 250.50", "1250.50", nil},
		{"  12.5  ", "12.5", nil},
		{"1\u00a0250.50", "1250.50", nil},
		{"12345678901234", "12345678901234", nil},
		{"99999999999999.99", "99999999999999.99", nil},
		{"1234567890123456", "", []string{"15"}},
		{"12.505", "", []string{"2"}},
	}
	comma := []typed{
		{"12,50", "12.50", nil},
		{"1,250.50", "", []string{"1250,50"}},
		{"1.250,50", "1250.50", nil},
		{"12.5", "", []string{"12,50", "125,00"}},
		{"1 250.50", "", []string{"1250,50", "125.050,00"}},
		{" 12,5 ", "12.5", nil},
		{"1\u202f250,50", "1250.50", nil},
	}
	inEachView(t, func(t *testing.T, s *scene) {
		s.api.Post("/api/wallets", map[string]any{"name": "Cash", "isDefault": true}).Expect(t, 200)
		s.api.Post("/api/categories", map[string]any{"name": "Food"}).Expect(t, 200)
	}, func(t *testing.T, s *scene) {
		openRecord(s, s.view.say("Transactions", "Movimientos"))
		if got, want := preview(s, "1,250.50"), s.view.say("MX$1,250.50", "$1,250.50"); got != want {
			t.Errorf("the amount shown beside the field reads %q, want %q", got, want)
		}
		typeAmounts(t, s, point)
		s.axe("amount-refused")

		s.open("/app/wallets", s.view.say("Wallets", "Carteras"))
		var box int
		s.eval(`document.querySelector('main form [name=name]').maxLength`, &box)
		if limit := s.api.Get("/api/limits").Object("lengths")["wallet.name"]; fmt.Sprint(limit) != fmt.Sprint(box) || box != 50 {
			t.Errorf("the wallet name box takes %d characters, the API %v", box, limit)
		}
		s.fill(`main form`, map[string]string{"name": "Owed", "balance": "-5"})
		s.waitFor("the negative balance refused", `document.querySelector('main form [data-field=balance] .field-error').innerText !== ''`)
		if got, want := s.text(`main form [data-field=balance] .field-error`), s.view.say("cannot be negative", "no puede ser negativo"); got != want {
			t.Errorf("a negative opening balance answers %q, want %q", got, want)
		}

		s.api.Patch("/api/me", map[string]any{"language": "es-ES"}).Expect(t, 200)
		openRecord(s, "Movimientos")
		if got := preview(s, "1.250,50"); got != "1250,50\u00a0MXN" {
			t.Errorf("in es-ES the amount shown beside the field reads %q", got)
		}
		typeAmounts(t, s, comma)
	})
}

// A transfer between wallets in different currencies says what the destination
// receives; within one currency it does not ask. A field error of the API that the
// form has no box for shows above the form, naming the field, in the person's language.
func TestTransfersBetweenCurrencies(t *testing.T) {
	var pesos, dollars string
	inEachView(t, func(t *testing.T, s *scene) {
		pesos = s.api.Post("/api/wallets", map[string]any{"name": "Pesos", "isDefault": true, "balance": 5000}).Expect(t, 200).Object("wallet")["id"].(string)
		dollars = s.api.Post("/api/wallets", map[string]any{"name": "Dollars", "currency": "USD"}).Expect(t, 200).Object("wallet")["id"].(string)
		s.api.Post("/api/categories", map[string]any{"name": "Food"}).Expect(t, 200)
	}, func(t *testing.T, s *scene) {
		openRecord(s, s.view.say("Transactions", "Movimientos"))
		received := `document.querySelector('form.record [data-field=destinationAmount]')`
		choose := func(to string) {
			s.eval(fmt.Sprintf(`(() => { const f = document.querySelector('form.record');
				f.querySelector('[name=type]').value = 'transfer'; f.querySelector('[name=walletId]').value = %q;
				f.querySelector('[name=destinationWalletId]').value = %q; f.dispatchEvent(new Event('change')); })()`, pesos, to), nil)
		}
		choose(pesos)
		s.waitFor("no amount received within one currency", received+`.hidden`)
		choose(dollars)
		s.waitFor("the amount received between currencies", `!`+received+`.hidden`)
		s.do(chromedp.SendKeys(`form.record [name=destinationAmount]`, "57.98"))
		if got := s.text(`form.record [data-field=destinationAmount] output`); got != s.view.say("$57.98", "USD\u00a057.98") {
			t.Errorf("the amount received shows as %q", got)
		}
		s.axe("transfer-between-currencies")
		s.fill(`form.record`, map[string]string{"amount": "1,000", "description": "To dollars"})
		waitUntil(t, "the transfer recorded", func() bool { return lastTransaction(t, s)["description"] == "To dollars" })
		last := lastTransaction(t, s)
		if last["description"] != "To dollars" || fmt.Sprint(last["amount"]) != "1000" || fmt.Sprint(last["destinationAmount"]) != "57.98" {
			t.Fatalf("the transfer recorded: %v", last)
		}

		// A form without the box: the API's detail reaches the person all the same.
		choose(dollars)
		s.eval(received+`.remove()`, nil)
		s.expected = append(s.expected, "status of 400")
		s.fill(`form.record`, map[string]string{"amount": "10", "description": "No box"})
		want := s.view.say("Amount received: is required for a transfer from MXN to USD", "Monto recibido: es obligatorio en una transferencia de MXN a USD")
		s.waitFor("the API's field error above the form", fmt.Sprintf(`document.querySelector('form.record .form-error').innerText === %q`, want))
		s.axe("field-error-above-the-form")
	})
}
