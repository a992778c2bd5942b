package statement

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Encoding is the character encoding a text statement (CSV, QIF) was written in.
type Encoding string

// The encodings read. Decode tells them apart; a caller that knows better names one in
// the reader's options.
const (
	EncodingUTF8        Encoding = "utf-8"
	EncodingUTF16LE     Encoding = "utf-16le"
	EncodingUTF16BE     Encoding = "utf-16be"
	EncodingWindows1252 Encoding = "windows-1252"
	EncodingISO88591    Encoding = "iso-8859-1"
)

// sniffSize is how much of a file Decode looks at before it decides: enough for
// hundreds of rows, small enough to hold whatever the file's size.
const sniffSize = 64 << 10

// Decode decides the encoding of a text file from its first 64 KiB and returns the
// file as UTF-8, without its byte-order mark, read as a stream:
//   - a byte-order mark names UTF-8, UTF-16LE or UTF-16BE;
//   - without one, NUL bytes in every other position (ASCII text written in UTF-16)
//     name UTF-16LE or UTF-16BE;
//   - otherwise bytes that are valid UTF-8 are UTF-8;
//   - and bytes that are not are Windows-1252 when some fall in 0x80–0x9F (where
//     Windows-1252 keeps €, curly quotes and dashes and ISO-8859-1 only control codes),
//     else ISO-8859-1.
//
// A file decided to be UTF-8 or ISO-8859-1 that turns out not to be later on fails there
// with an *EncodingError rather than reading garbled text; the caller names the encoding
// (Windows-1252 reads every byte ISO-8859-1 does) and reads it again.
func Decode(r io.Reader) (io.Reader, Encoding, error) {
	br := bufio.NewReaderSize(r, sniffSize)
	prefix, err := br.Peek(sniffSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, "", fmt.Errorf("statement: read the file's start: %w", err)
	}
	enc := detectEncoding(prefix)
	out, err := DecodeAs(br, enc)
	return out, enc, err
}

// openText is the start shared by the readers of text a person's tools write (CSV, QIF):
// the file decoded in enc, or in the encoding Decode finds when enc is empty, once the
// decimal separator asked for (0: decided from the file) is known to be one.
func openText(r io.Reader, enc Encoding, decimalSeparator rune) (io.Reader, error) {
	if decimalSeparator != 0 && decimalSeparator != '.' && decimalSeparator != ',' {
		return nil, fmt.Errorf("statement: a decimal separator is '.' or ',', not %q", decimalSeparator)
	}
	if enc != "" {
		return DecodeAs(r, enc)
	}
	text, _, err := Decode(r)
	return text, err
}

// DecodeAs returns r, written in enc, as UTF-8 without its byte-order mark.
func DecodeAs(r io.Reader, enc Encoding) (io.Reader, error) {
	var dec *encoding.Decoder
	switch enc {
	case EncodingUTF8:
		br := bufio.NewReader(r)
		if bom, _ := br.Peek(3); bytes.Equal(bom, []byte{0xEF, 0xBB, 0xBF}) {
			_, _ = br.Discard(3) // Peek returned the bytes: Discard cannot fail
		}
		return &utf8Checked{r: br}, nil
	case EncodingUTF16LE:
		dec = unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewDecoder()
	case EncodingUTF16BE:
		dec = unicode.UTF16(unicode.BigEndian, unicode.UseBOM).NewDecoder()
	case EncodingWindows1252:
		dec = charmap.Windows1252.NewDecoder()
	case EncodingISO88591:
		return transform.NewReader(&latin1Checked{r: r}, charmap.ISO8859_1.NewDecoder()), nil
	default:
		return nil, fmt.Errorf("statement: unknown encoding %q", enc)
	}
	return transform.NewReader(r, dec), nil
}

func detectEncoding(p []byte) Encoding {
	switch {
	case bytes.HasPrefix(p, []byte{0xEF, 0xBB, 0xBF}):
		return EncodingUTF8
	case bytes.HasPrefix(p, []byte{0xFF, 0xFE}):
		return EncodingUTF16LE
	case bytes.HasPrefix(p, []byte{0xFE, 0xFF}):
		return EncodingUTF16BE
	}
	if enc, ok := utf16FromNULs(p); ok {
		return enc
	}
	if validUTF8Prefix(p) {
		return EncodingUTF8
	}
	for _, b := range p {
		if b >= 0x80 && b <= 0x9F {
			return EncodingWindows1252
		}
	}
	return EncodingISO88591
}

// utf16FromNULs tells UTF-16 without a byte-order mark by where its NULs fall: text
// that is mostly ASCII has a NUL in the high byte of nearly every code unit, and
// single-byte text has almost none.
func utf16FromNULs(p []byte) (Encoding, bool) {
	n := len(p) &^ 1
	if n < 4 {
		return "", false
	}
	var even, odd int
	for i := 0; i < n; i += 2 {
		if p[i] == 0 {
			even++
		}
		if p[i+1] == 0 {
			odd++
		}
	}
	units := n / 2
	switch {
	case odd*3 >= units && even*10 <= odd:
		return EncodingUTF16LE, true
	case even*3 >= units && odd*10 <= even:
		return EncodingUTF16BE, true
	}
	return "", false
}

// validUTF8Prefix reports whether p is UTF-8, allowing a rune cut at its end.
func validUTF8Prefix(p []byte) bool {
	if utf8.Valid(p) {
		return true
	}
	for cut := 1; cut < utf8.UTFMax && cut < len(p); cut++ {
		if utf8.Valid(p[:len(p)-cut]) && !utf8.FullRune(p[len(p)-cut:]) {
			return true
		}
	}
	return false
}

// EncodingError is a file whose start was read as one encoding with bytes further on
// that are not text in it: bytes that are not UTF-8, or in ISO-8859-1 the control codes
// 0x80–0x9F, which only Windows-1252 writes as text (€, curly quotes).
type EncodingError struct {
	Encoding Encoding
	Offset   int64 // of the first such byte, after any byte-order mark
}

func (e *EncodingError) Error() string {
	return fmt.Sprintf("statement: the file began as %s but byte %d is not %s text: name the file's encoding", e.Encoding, e.Offset, e.Encoding)
}

// latin1Checked passes ISO-8859-1 through and fails at the first byte in 0x80–0x9F.
type latin1Checked struct {
	r      io.Reader
	offset int64
	err    error
}

func (l *latin1Checked) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	for i, b := range p[:n] {
		if b >= 0x80 && b <= 0x9F {
			l.err = &EncodingError{Encoding: EncodingISO88591, Offset: l.offset + int64(i)}
			l.offset += int64(i)
			return i, nil
		}
	}
	l.offset += int64(n)
	return n, err
}

// utf8Checked passes UTF-8 through and fails at the first byte that is not, holding back
// at most the few bytes of a rune cut between two reads.
type utf8Checked struct {
	r       io.Reader
	pending []byte // the start of a rune cut by the last read
	offset  int64
	err     error
}

func (u *utf8Checked) Read(p []byte) (int, error) {
	if u.err != nil {
		return 0, u.err
	}
	if len(p) < 2*utf8.UTFMax {
		// A caller with a tiny buffer still gets whole runes checked.
		buf := make([]byte, 2*utf8.UTFMax)
		n, err := u.Read(buf)
		if n > len(p) {
			return 0, io.ErrShortBuffer
		}
		return copy(p, buf[:n]), err
	}
	k := copy(p, u.pending)
	u.pending = u.pending[:0]
	n, err := u.r.Read(p[k:])
	n += k
	end := n
	// Hold back an incomplete rune at the end, unless the input has ended.
	if err == nil {
		for i := 1; i < utf8.UTFMax && i <= end; i++ {
			if utf8.RuneStart(p[end-i]) {
				if !utf8.FullRune(p[end-i : end]) {
					u.pending = append(u.pending, p[end-i:end]...)
					end -= i
				}
				break
			}
		}
	}
	for i := 0; i < end; {
		c, size := utf8.DecodeRune(p[i:end])
		if c == utf8.RuneError && size <= 1 {
			u.err = &EncodingError{Encoding: EncodingUTF8, Offset: u.offset + int64(i)}
			u.offset += int64(i)
			return i, nil
		}
		i += size
	}
	u.offset += int64(end)
	if err != nil {
		u.err = err
	}
	return end, err
}
