package domain

import (
	"strings"
	"testing"
)

// Text a person writes is trimmed of spaces and invisible characters and refused when
// it holds what makes it read otherwise than it is written; real text in any script,
// emoji sequences included, passes unchanged.
func TestTextRule(t *testing.T) {
	name := Text{Min: 1, Max: 50}
	optional := Text{Max: 255}
	lines := Text{Max: 2000, Multiline: true}
	england := "🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F"
	for _, c := range []struct {
		label string
		rule  Text
		in    string
		out   string // the text kept, when it passes
		says  string // what the refusal says, "" when it passes
	}{
		{"spaces", name, "   ", "", "other than spaces"},
		{"zero-width space", name, "\u200B", "", "invisible characters"},
		{"format characters only", name, "\u200D\uFEFF\u2060\u00AD\u180E", "", "invisible characters"},
		{"spaces and format characters", name, " \u200B\u00A0\uFEFF ", "", "invisible characters"},
		{"trimmed", name, " \u200BCash\uFEFF\u2060 ", "Cash", ""},
		{"too long once trimmed", name, "\u200B" + strings.Repeat("x", 51), "", "1 to 50"},
		{"optional, empty once trimmed", optional, " \u200B ", "", ""},
		{"right-to-left override", name, "\u202Eexe.jpg", "", "U+202E"},
		{"left-to-right embedding", name, "a\u202Ab", "", "U+202A"},
		{"isolate", name, "a\u2066b\u2069", "", "U+2066"},
		{"first strong isolate", name, "\u2068x", "", "U+2068"},
		{"left-to-right mark", name, "\u200EBank", "", "U+200E"},
		{"right-to-left mark", name, "Bank\u200F", "", "U+200F"},
		{"Arabic letter mark", name, "\u061Cabc", "", "U+061C"},
		{"bidi control in a description", lines, "ok\n\u202Ethen", "", "bidirectional"},
		{"line break in a name", name, "Cash\nBank", "", "single line"},
		{"tab in a name", name, "Cash\tBank", "", "single line"},
		{"line breaks around a name", name, "\tCash\r\n", "Cash", ""},
		{"line separator in a name", name, "Cash\u2028Bank", "", "single line"},
		{"escape sequence", name, "Cash\x1b[31m", "", "U+001B"},
		{"C1 control", lines, "a\u0085b", "", "U+0085"},
		{"hidden tag text", name, "Cash\U000E0041\U000E0042", "", "U+E0041"},
		{"unfinished flag", name, "🏴\U000E0067\U000E0062 x", "", "U+E007F"},
		{"unfinished flag at the end", name, "🏴\U000E0067", "", "U+E007F"},
		{"lines in a description", lines, " first\n\tsecond\r\nthird ", "first\n\tsecond\r\nthird", ""},
		{"emoji with joiners", name, "👨\u200D👩\u200D👧 family", "👨\u200D👩\u200D👧 family", ""},
		{"flag of England", name, "Trip " + england, "Trip " + england, ""},
		{"black flag alone", name, "🏴 pirates", "🏴 pirates", ""},
		{"Persian with a non-joiner", name, "می\u200Cخواهم", "می\u200Cخواهم", ""},
		{"Arabic", name, "مصاريف البيت", "مصاريف البيت", ""},
		{"Hebrew", name, "קניות", "קניות", ""},
		{"Arabic number sign", name, "\u0600١٢٣", "\u0600١٢٣", ""},
		{"accents", name, "Café Ñandú", "Café Ñandú", ""},
	} {
		out, problem := c.rule.Check(c.in)
		switch {
		case c.says == "" && problem != "":
			t.Errorf("%s: %q refused: %s", c.label, c.in, problem)
		case c.says == "" && out != c.out:
			t.Errorf("%s: %q kept as %q, want %q", c.label, c.in, out, c.out)
		case c.says != "" && !strings.Contains(problem, c.says):
			t.Errorf("%s: %q: %q, want it to say %q", c.label, c.in, problem, c.says)
		}
	}
}

// Text that is made fit rather than refused loses what the rule refuses, and no more.
func TestTextClean(t *testing.T) {
	label := Text{Max: 20}
	for in, want := range map[string]string{
		"\u202eAlice\u200b ":                 "Alice",
		"books\x00-sync/2\t(linux)":          "books-sync/2 (linux)",
		"a\u2066b\u2069c\u200ed":             "abcd",
		"Hidden\U000E0041\U000E0042":         "Hidden",
		"👨\u200d👩\u200d👧 Family":             "👨\u200d👩\u200d👧 Family",
		"مصاريف":                             "مصاريف",
		strings.Repeat("x", 19) + " \u200by": strings.Repeat("x", 19),
	} {
		if got := label.Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
		if _, problem := label.Check(label.Clean(in)); problem != "" {
			t.Errorf("Clean(%q) still breaks the rule: %s", in, problem)
		}
	}
}
