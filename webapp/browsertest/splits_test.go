package browsertest_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
)

// setField sets a field of a form by name, as a person's typing or choosing would.
func (s *scene) setField(form, name, value string) {
	s.t.Helper()
	s.eval(fmt.Sprintf(`(() => {
		const el = document.querySelector(%q).elements[%q];
		el.value = %q;
		el.dispatchEvent(new Event('input', { bubbles: true }));
		el.dispatchEvent(new Event('change', { bubbles: true }));
	})()`, form, name, value), nil)
}

// submit presses a form's submit button (on a phone the sticky header may cover it).
func (s *scene) submit(form string) {
	s.t.Helper()
	s.eval(fmt.Sprintf(`document.querySelector(%q).click()`, form+" button[type=submit]"), nil)
}

// fieldValues are the values of a form's fields whose names start with prefix.
func (s *scene) fieldValues(form, prefix string) []string {
	s.t.Helper()
	var out []string
	s.eval(fmt.Sprintf(`[...document.querySelector(%q).elements].filter((el) => el.name.startsWith(%q)).map((el) => el.value)`, form, prefix), &out)
	return out
}

// partsOf are a transaction's parts as the API holds them: amount, category, tag and
// concept, each as text.
func partsOf(tx map[string]any) []string {
	var out []string
	for _, p := range tx["splits"].([]any) {
		p := p.(map[string]any)
		out = append(out, fmt.Sprintf("%v %v %v %v", p["amount"], p["categoryId"], p["tagId"], p["concept"]))
	}
	return out
}

// A split expense recorded in the quick form: three parts whose remainder, shown exactly,
// is first a cent, which the API refuses in the person's language, then over, then
// nothing; the API holds the parts. In the list the row says it is split and lists its
// parts. Corrected in place, its parts are prefilled; one is changed, one removed, and a
// live update keeps the parts as they are being edited. Filtered by a part's category,
// the list marks that part. Unsplit, it is one category again. The editor is labelled,
// axe-clean and translated, and fits a phone.
func TestSplitTransactionsAreRecordedCorrectedAndUnsplit(t *testing.T) {
	english := words(t)
	var pantry, home, gifts, party string
	inEachView(t, func(t *testing.T, s *scene) {
		s.api.Post("/api/wallets", map[string]any{"name": "Banorte", "balance": 1000, "isDefault": true}).Expect(t, http.StatusOK)
		pantry = s.create("/api/categories", "category", map[string]any{"name": "Despensa"})
		home = s.create("/api/categories", "category", map[string]any{"name": "Hogar"})
		gifts = s.create("/api/categories", "category", map[string]any{"name": "Regalos"})
		party = s.create("/api/tags", "tag", map[string]any{"name": "Fiesta", "color": "#aa3366"})
	}, func(t *testing.T, s *scene) {
		s.expected = append(s.expected, "status of 400")
		say := s.view.say
		mxn := func(amount string) string { return say("MX$", "$") + amount }
		record, inline := "form.record", "form.inline"
		openRecord(s, say("Transactions", "Movimientos"))
		s.waitFor("the live updates", `document.querySelector('#live[data-up=true]')`)

		s.setField(record, "amount", "100.00")
		s.setField(record, "description", "Súper")
		s.pushButtonText(say("Split", "Dividir"))
		s.waitFor("two parts, the focus in the first", `document.querySelectorAll('form.record .part').length === 2 && document.activeElement.name === 'splits[0].amount'`)
		var hidden bool
		s.eval(`!!document.querySelector('form.record [data-field=categoryId]').closest('[hidden]')`, &hidden)
		if !hidden {
			t.Error("the category is shown beside its parts")
		}
		s.do(chromedp.SendKeys(`form.record [name="splits[0].amount"]`, "70.25"))
		s.setField(record, "splits[1].amount", "19.74")
		s.setField(record, "splits[1].categoryId", home)
		s.pushButtonText(say("Add part", "Agregar parte"))
		s.waitFor("a third part, focused", `document.activeElement.name === 'splits[2].amount'`)
		s.setField(record, "splits[2].amount", "10")
		s.setField(record, "splits[2].categoryId", gifts)
		s.setField(record, "splits[2].tagId", party)
		s.setField(record, "splits[2].concept", "Pastel")
		if got, want := s.text(record+" .remainder"), say("Left to assign", "Por asignar")+" "+mxn("0.01"); got != want {
			t.Errorf("the remainder reads %q, want %q", got, want)
		}
		var wide bool
		s.eval(`document.documentElement.scrollWidth > innerWidth`, &wide)
		if wide {
			t.Error("the split editor scrolls the page sideways")
		}
		s.axe("split-editor-" + s.view.Name)
		if bad := s.untranslated(english); len(bad) > 0 {
			t.Errorf("the split editor shows %q", bad)
		}

		// A cent left: the API refuses, saying so beside the parts; nothing is recorded.
		s.submit(record)
		s.waitFor("the refusal", `document.querySelector('form.record [data-field=splits] .field-error').innerText !== ''`)
		if got, want := s.text(record+" [data-field=splits] .field-error"), say("the parts add up to 99.99 MXN, 0.01 less than the amount 100.00",
			"las partes suman 99.99 MXN, 0.01 menos que el monto 100.00"); got != want {
			t.Errorf("the refusal reads %q, want %q", got, want)
		}
		if n := len(s.api.Get("/api/transactions").List("transactions")); n != 0 {
			t.Fatalf("a refused split recorded %d transactions", n)
		}
		s.setField(record, "splits[1].amount", "19.80")
		if got, want := s.text(record+" .remainder"), say("Over by", "Excedido por")+" "+mxn("0.05"); got != want {
			t.Errorf("the parts over the amount read %q, want %q", got, want)
		}
		s.setField(record, "splits[1].amount", "19.75")
		if got, want := s.text(record+" .remainder"), say("Left to assign", "Por asignar")+" "+mxn("0.00"); got != want {
			t.Errorf("the remainder reads %q, want %q", got, want)
		}
		s.submit(record)
		waitUntil(t, "the split recorded", func() bool { return lastTransaction(t, s)["description"] == "Súper" })
		tx := lastTransaction(t, s)
		want := []string{fmt.Sprintf("70.25 %s <nil> <nil>", pantry), fmt.Sprintf("19.75 %s <nil> <nil>", home), fmt.Sprintf("10 %s %s Pastel", gifts, party)}
		if got := partsOf(tx); fmt.Sprint(got) != fmt.Sprint(want) || tx["categoryId"] != nil || fmt.Sprint(tx["amount"]) != "100" {
			t.Fatalf("recorded %v with parts %q; want the parts %q", tx, got, want)
		}
		s.waitFor("the quick form one category again", `!document.querySelector('form.record .part') && !document.querySelector('form.record [data-field=categoryId]').hidden`)

		// The list says the row is split, and lists its parts once unfolded. (The page is
		// opened again: a live update of the recording still under way would open the row
		// again from the API, as it was before what the test types next.)
		s.open("/app/transactions", say("Transactions", "Movimientos"))
		s.waitFor("the live updates", `document.querySelector('#live[data-up=true]')`)
		summary := `document.querySelector('main tbody details.parts summary')`
		s.waitFor("the split row", summary+` && `+summary+fmt.Sprintf(`.innerText === %q`, say("Split", "Dividir")+" · 3"))
		s.eval(summary+`.click()`, nil)
		var lines []string
		s.eval(`[...document.querySelectorAll('main tbody details.parts[open] li')].map((li) => li.innerText)`, &lines)
		if want := []string{"Despensa · " + mxn("70.25"), "Hogar · " + mxn("19.75"), "Regalos · Pastel · " + mxn("10.00")}; fmt.Sprint(lines) != fmt.Sprint(want) {
			t.Errorf("the split row lists %q, want %q", lines, want)
		}

		// Corrected in place: the parts prefilled; one changed, one removed.
		s.press(say("Edit", "Editar"), "Súper")
		s.waitFor("the parts prefilled", `document.querySelectorAll('form.inline .part').length === 3`)
		if got := s.fieldValues(inline, "splits["); fmt.Sprint(got) != fmt.Sprint([]string{"70.25", pantry, "", "", "19.75", home, "", "", "10", gifts, party, "Pastel"}) {
			t.Errorf("the correction's parts hold %q", got)
		}
		s.setField(inline, "splits[0].amount", "80.25")
		s.pushButton(say("Remove part", "Quitar parte") + " 3")
		s.waitFor("two parts left, the focus in the one before", `document.querySelectorAll('form.inline .part').length === 2 && document.activeElement.name === 'splits[1].amount'`)
		var disabled []bool
		s.eval(`[...document.querySelectorAll('form.inline .part button.danger')].map((b) => b.disabled)`, &disabled)
		if fmt.Sprint(disabled) != "[true true]" {
			t.Errorf("with two parts left, their Remove buttons are disabled: %v", disabled)
		}
		if got, want := s.text(inline+" .remainder"), say("Left to assign", "Por asignar")+" "+mxn("0.00"); got != want {
			t.Errorf("the correction's remainder reads %q, want %q", got, want)
		}
		// A transaction recorded elsewhere redraws the list around the parts being edited.
		s.api.Post("/api/transactions", map[string]any{"type": "expense", "amount": 7, "description": "Pan"}).Expect(t, http.StatusCreated)
		s.waitFor("the other device's expense in the list", `document.querySelector('main tbody').innerText.includes('Pan')`)
		if got := s.fieldValues(inline, "splits["); fmt.Sprint(got) != fmt.Sprint([]string{"80.25", pantry, "", "", "19.75", home, "", ""}) {
			t.Errorf("after a live update the parts hold %q", got)
		}
		s.axe("split-correction-" + s.view.Name)
		s.submit(inline)
		s.waitFor("the row saved", `!document.querySelector('form.inline')`)
		id := tx["id"].(string)
		got := s.api.Get("/api/transactions/"+id).Expect(t, http.StatusOK).Object("transaction")
		if want := []string{fmt.Sprintf("80.25 %s <nil> <nil>", pantry), fmt.Sprintf("19.75 %s <nil> <nil>", home)}; fmt.Sprint(partsOf(got)) != fmt.Sprint(want) {
			t.Fatalf("corrected into %q, want %q", partsOf(got), want)
		}
		s.waitFor("the row split in two", summary+fmt.Sprintf(`.innerText === %q`, say("Split", "Dividir")+" · 2"))

		// Filtered by a part's category, the row shows its parts with that one marked.
		s.open("/app/transactions?categoryId="+home, say("Transactions", "Movimientos"))
		s.waitFor("the matching part marked", `document.querySelector('main tbody details.parts[open] li[data-part="1"] mark')`)
		var marked []string
		s.eval(`[...document.querySelectorAll('main tbody details.parts li mark')].map((m) => m.textContent)`, &marked)
		if want := say("Matches the filter", "Coincide con el filtro") + ": Hogar · " + mxn("19.75"); len(marked) != 1 || marked[0] != want {
			t.Errorf("the parts marked: %q, want one, %q", marked, want)
		}
		s.axe("split-filtered-" + s.view.Name)
		if bad := s.untranslated(english); len(bad) > 0 {
			t.Errorf("the filtered list shows %q", bad)
		}

		// Unsplit: one category again.
		s.press(say("Edit", "Editar"), "Súper")
		s.waitFor("the parts prefilled", `document.querySelectorAll('form.inline .part').length === 2`)
		s.pushButtonText(say("Unsplit", "Una sola categoría"))
		s.waitFor("the category back, focused", `!document.querySelector('form.inline .part') && document.activeElement.name === 'categoryId'`)
		s.setField(inline, "categoryId", home)
		s.submit(inline)
		s.waitFor("the row saved", `!document.querySelector('form.inline')`)
		got = s.api.Get("/api/transactions/"+id).Expect(t, http.StatusOK).Object("transaction")
		if len(got["splits"].([]any)) != 0 || got["categoryId"] != home {
			t.Fatalf("unsplit into %v", got)
		}
		s.waitFor("the row of one category", `!document.querySelector('main tbody details.parts') && document.querySelector('main tbody').innerText.includes('Hogar')`)
	})
}
