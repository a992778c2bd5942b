package commands

import (
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
