package commands

import (
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// FoldName reduces a name to the form used to compare names: accents removed, letter
// case folded, surrounding and repeated spaces dropped. "Café  Norte" and "cafe norte"
// name the same wallet.
func FoldName(name string) string {
	var b strings.Builder
	space := false
	for _, r := range norm.NFD.String(strings.TrimSpace(name)) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case unicode.IsSpace(r):
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Suggest returns up to limit of names that look like query (ignoring accents and
// case): those containing it or contained in it first, then those sharing its
// beginning; with no likeness at all, the first names alphabetically.
func Suggest(names []string, query string, limit int) []string {
	q := FoldName(query)
	type scored struct {
		name  string
		score int
	}
	var list []scored
	for _, n := range names {
		f := FoldName(n)
		score := 0
		for score < len(f) && score < len(q) && f[score] == q[score] {
			score++
		}
		if q != "" && (strings.Contains(f, q) || strings.Contains(q, f)) {
			score += 100
		}
		list = append(list, scored{n, score})
	}
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].score != list[j].score {
			return list[i].score > list[j].score
		}
		return FoldName(list[i].name) < FoldName(list[j].name)
	})
	out := []string{}
	for _, s := range list {
		if len(out) == limit {
			break
		}
		out = append(out, s.name)
	}
	return out
}
