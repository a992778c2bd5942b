package domain

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text is the rule of a text field a person writes (a name, a concept, a description,
// a note), which other members, the web app, reports and the chat agent show. It is
// the one rule of every such field:
//   - White space and invisible format characters (Unicode category Cf: U+200B ZERO
//     WIDTH SPACE, U+200D ZERO WIDTH JOINER, U+2060 WORD JOINER, U+FEFF, the soft
//     hyphen...) around the text are dropped, so a text of them alone is empty, and a
//     required one is refused as an empty one is. Inside the text they stay: joiners
//     build emoji sequences and Persian words.
//   - Bidirectional controls (U+202A to U+202E, U+2066 to U+2069, U+200E, U+200F,
//     U+061C) are refused anywhere: they make a text read otherwise than it is written
//     (a file name ending in "gpj.exe" shown as "exe.jpg"), and Arabic or Hebrew text
//     needs none of them to show right.
//   - Control characters are refused, bar line breaks and tabs within a multi-line
//     field (around any text they are white space).
//   - Tag characters (U+E0000 to U+E007F) are refused outside an emoji tag sequence
//     (the flags of England, Scotland, Wales): elsewhere they are text no one sees.
//
// Lengths count characters once the text is trimmed.
type Text struct {
	Min, Max  int
	Multiline bool
}

// Check returns s trimmed, and why it breaks the rule ("" when it does not).
func (t Text) Check(s string) (string, string) {
	if problem := refusal(s); problem != "" {
		return s, problem
	}
	s = strings.TrimFunc(s, blank)
	switch n := utf8.RuneCountInString(s); {
	case !t.Multiline && strings.ContainsAny(s, lineBreaks):
		return s, "must be a single line, without line breaks or tabs"
	case n == 0 && t.Min > 0:
		return s, "must hold a character other than spaces and invisible characters"
	case n < t.Min || n > t.Max:
		if t.Min > 0 {
			return s, fmt.Sprintf("must be %d to %d characters long", t.Min, t.Max)
		}
		return s, fmt.Sprintf("must be at most %d characters long", t.Max)
	}
	return s, ""
}

// Clean returns s as the rule keeps a text that is not refused but made fit (a header,
// a name the identity provider gives): what Check refuses is dropped (bidirectional
// controls, control characters, tag characters), a line break or tab of a single line
// becomes a space, and the rest is trimmed and cut to Max characters.
func (t Text) Clean(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case strings.ContainsRune(lineBreaks, r) && !t.Multiline:
			return ' '
		case strings.ContainsRune(lineBreaks, r):
			return r
		case unicode.Is(unicode.Bidi_Control, r), unicode.IsControl(r), r >= tagFirst && r <= tagCancel:
			return -1
		}
		return r
	}, s)
	s = strings.TrimFunc(s, blank)
	if runes := []rune(s); len(runes) > t.Max {
		s = strings.TrimFunc(string(runes[:t.Max]), blank)
	}
	return s
}

// refusal says which character of s the rule refuses, "" when none.
func refusal(s string) string {
	// Where s stands in emoji tag sequences: tags may start after a black flag, and
	// once started must end with the cancel tag.
	const (
		outside = iota
		afterFlag
		inTags
	)
	state := outside
	for _, r := range s {
		if r >= tagFirst && r <= tagCancel {
			if state == outside {
				return fmt.Sprintf("must not hold the invisible tag character U+%04X outside an emoji flag", r)
			}
			state = inTags
			if r == tagCancel {
				state = outside
			}
			continue
		}
		if state == inTags {
			return "must end each emoji flag's tag characters with U+E007F"
		}
		state = outside
		switch {
		case r == blackFlag:
			state = afterFlag
		case unicode.Is(unicode.Bidi_Control, r):
			return fmt.Sprintf("must not hold the bidirectional control U+%04X, which makes text read otherwise than it is written", r)
		case strings.ContainsRune(lineBreaks, r):
			// Checked once the text is trimmed: around it they are white space.
		case unicode.IsControl(r):
			return fmt.Sprintf("must not hold the control character U+%04X", r)
		}
	}
	if state == inTags {
		return "must end each emoji flag's tag characters with U+E007F"
	}
	return ""
}

// lineBreaks are the characters that break a line or tab it, which only a multi-line
// field holds.
const lineBreaks = "\n\r\t\u2028\u2029"

// An emoji tag sequence: a black flag, tag characters, and the cancel tag.
const (
	blackFlag = '\U0001F3F4'
	tagFirst  = '\U000E0000'
	tagCancel = '\U000E007F'
)

// blank reports a character that shows nothing around a text: white space, and the
// invisible format characters (category Cf) other than the prepended concatenation
// marks, which are visible signs written before the digits they span, and the tag
// characters, which end an emoji flag (and are refused anywhere else).
func blank(r rune) bool {
	return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) && !unicode.Is(prependedMarks, r) && (r < tagFirst || r > tagCancel)
}

// prependedMarks are Unicode's Prepended_Concatenation_Mark characters, in category Cf
// but drawn (U+0600 ARABIC NUMBER SIGN and its kin).
var prependedMarks = &unicode.RangeTable{
	R16: []unicode.Range16{{Lo: 0x0600, Hi: 0x0605, Stride: 1}, {Lo: 0x06DD, Hi: 0x06DD, Stride: 1},
		{Lo: 0x070F, Hi: 0x070F, Stride: 1}, {Lo: 0x0890, Hi: 0x0891, Stride: 1}, {Lo: 0x08E2, Hi: 0x08E2, Stride: 1}},
	R32: []unicode.Range32{{Lo: 0x110BD, Hi: 0x110BD, Stride: 1}, {Lo: 0x110CD, Hi: 0x110CD, Stride: 1}},
}
