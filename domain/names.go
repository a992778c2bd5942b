package domain

import (
	"sort"
	"strings"
	"unicode"

	"github.com/google/uuid"
	"golang.org/x/text/unicode/norm"
)

// FoldName reduces a name to the form used to compare names: accents removed, letter
// case folded, surrounding and repeated spaces dropped, invisible format characters
// (category Cf) dropped. "Café  Norte" and "cafe norte" name the same wallet, and so
// do "Cash" and "Ca\u200Bsh", which look alike.
func FoldName(name string) string {
	var b strings.Builder
	space := false
	for _, r := range norm.NFD.String(strings.TrimSpace(name)) {
		switch {
		case unicode.Is(unicode.Mn, r), unicode.Is(unicode.Cf, r):
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

// walletNamed finds a live wallet by name, ignoring accents and case; an empty name
// means the oldest live wallet. It fails with WALLET_NOT_FOUND, whose details suggest
// the closest names.
func (w *Workspace) walletNamed(name string) (uuid.UUID, *Wallet, error) {
	ids := liveInOrder(w.Wallets, func(x *Wallet) (bool, int64) { return !x.Archived, x.Seq })
	names := make([]string, len(ids))
	for i, id := range ids {
		wallet := w.Wallets[id]
		if name == "" || FoldName(wallet.Name) == FoldName(name) {
			return id, wallet, nil
		}
		names[i] = wallet.Name
	}
	if name == "" {
		e := NotFound("WALLET_NOT_FOUND", "the workspace has no wallet")
		e.Details = map[string]any{"suggestions": []string{}}
		return uuid.Nil, nil, e
	}
	return uuid.Nil, nil, nameNotFound("WALLET_NOT_FOUND", "wallet", name, names)
}

// categoryNamed finds a live category by name like walletNamed; an empty name means
// the oldest live category, and none (a nil category, no error) when there is none.
// It fails with CATEGORY_NOT_FOUND, whose details suggest the closest names.
func (w *Workspace) categoryNamed(name string) (*uuid.UUID, *Category, error) {
	ids := liveInOrder(w.Categories, func(x *Category) (bool, int64) { return !x.Archived, x.Seq })
	names := make([]string, len(ids))
	for i, id := range ids {
		category := w.Categories[id]
		if name == "" || FoldName(category.Name) == FoldName(name) {
			return &id, category, nil
		}
		names[i] = category.Name
	}
	if name == "" {
		return nil, nil, nil
	}
	return nil, nil, nameNotFound("CATEGORY_NOT_FOUND", "category", name, names)
}

// nameNotFound is the error of a name that matches nothing, with the closest names.
func nameNotFound(code, what, name string, names []string) *Error {
	e := NotFound(code, "no %s is named %q", what, name)
	e.Details = map[string]any{"suggestions": Suggest(names, name, 5)}
	return e
}

// liveInOrder returns the ids of the live records, oldest first: live and seq tell
// whether a record is live and its place in the order of creation.
func liveInOrder[T any](records map[uuid.UUID]T, live func(T) (bool, int64)) []uuid.UUID {
	type entry struct {
		id  uuid.UUID
		seq int64
	}
	var list []entry
	for id, r := range records {
		if ok, seq := live(r); ok {
			list = append(list, entry{id, seq})
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].seq < list[j].seq })
	ids := make([]uuid.UUID, len(list))
	for i, e := range list {
		ids[i] = e.id
	}
	return ids
}
