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

// Suggest returns up to limit names ranked by their likeness to query, best first:
// names are compared folded (accents and case ignored); one holding the other ranks
// first, then by edit distance relative to length, ties alphabetically.
func Suggest(names []string, query string, limit int) []string {
	q := []rune(FoldName(query))
	type scored struct {
		name   string
		folded string
		score  float64
	}
	list := make([]scored, 0, len(names))
	for _, n := range names {
		f := FoldName(n)
		r := []rune(f)
		longest := max(len(r), len(q), 1)
		score := 1 - float64(editDistance(r, q))/float64(longest)
		if len(q) > 0 && (strings.Contains(f, string(q)) || strings.Contains(string(q), f)) {
			score++
		}
		list = append(list, scored{n, f, score})
	}
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].score != list[j].score {
			return list[i].score > list[j].score
		}
		return list[i].folded < list[j].folded
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

// editDistance is the Levenshtein distance between two strings of runes.
func editDistance(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
