package statement

import (
	"bufio"
	"bytes"
	"io"
	"regexp"
)

// formatPeek is how much of a file its format is told from.
const formatPeek = 8 << 10

// Options are what a person may have to say about a file that does not say it itself:
// the columns of a CSV, the date order and decimal separator of a CSV or QIF file.
type Options struct {
	CSV CSVOptions
	QIF QIFOptions
}

// Open tells a file's format from its content, never its name, and returns the reader
// of that format over r. A file that is none of the others is read as CSV, whose
// reader says what it cannot make out.
func Open(r io.Reader, opts Options) (Format, Reader, error) {
	br := bufio.NewReaderSize(r, formatPeek)
	head, err := br.Peek(formatPeek)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return "", nil, err
	}
	format := Sniff(head)
	var rd Reader
	switch format {
	case FormatOFX:
		rd, err = NewOFX(br)
	case FormatCAMT:
		rd, err = NewCAMT(br)
	case FormatMT940:
		rd, err = NewMT940(br)
	case FormatQIF:
		rd, err = NewQIF(br, opts.QIF)
	default:
		rd, err = NewCSV(br, opts.CSV)
	}
	return format, rd, err
}

var (
	ofxMarker   = regexp.MustCompile(`(?i)^\s*OFXHEADER\s*:|<\?OFX\b|<OFX>`)
	camtMarker  = regexp.MustCompile(`urn:iso:std:iso:20022:tech:xsd:camt\.05[234]\b|<(BkToCstmrStmt|BkToCstmrAcctRpt|BkToCstmrDbtCdtNtfctn)\b`)
	qifMarker   = regexp.MustCompile(`(?i)^\s*!(Type|Account|Option|Clear)\b`)
	mt940Marker = regexp.MustCompile(`(?m)^\s*(\{1:|:20:)[^\n]*(\n[^\n]*){0,6}\n\s*:25:`)
)

// Sniff tells a file's format from its first bytes: OFX by its header or root element,
// CAMT by its ISO 20022 namespace or message element, QIF by its first line's
// "!Type:" (or "!Account", "!Option"), MT940 by a :20: or a SWIFT block followed
// shortly by :25:, and anything else CSV. UTF-16's zero bytes and a byte order mark are
// passed over, so a file in UTF-16 is told as one in UTF-8 would be.
func Sniff(head []byte) Format {
	text := bytes.ReplaceAll(head, []byte{0}, nil)
	for _, bom := range [][]byte{{0xEF, 0xBB, 0xBF}, {0xFF, 0xFE}, {0xFE, 0xFF}} {
		text = bytes.TrimPrefix(text, bom)
	}
	switch {
	case camtMarker.Match(text):
		return FormatCAMT
	case ofxMarker.Match(text):
		return FormatOFX
	case qifMarker.Match(text):
		return FormatQIF
	case mt940Marker.Match(text):
		return FormatMT940
	default:
		return FormatCSV
	}
}
