package statement

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// maxRecordBytes bounds one CSV record, so that a quote never closed cannot make the
// reader hold the rest of the file.
const maxRecordBytes = 1 << 20

// csvRecords splits CSV text into records: fields apart by one delimiter, a field in
// double quotes may hold the delimiter, line breaks and "" for a quote; a quote inside
// an unquoted field is kept as text, as spreadsheets write it. encoding/csv is not used
// because it holds an unclosed quote's field without bound.
type csvRecords struct {
	r     *bufio.Reader
	delim byte
	line  int // lines finished so far
	field []byte
}

// next returns the next record and the line it starts on, or io.EOF.
func (c *csvRecords) next() ([]string, int, error) {
	start := c.line + 1
	var fields []string
	c.field = c.field[:0]
	quoted, wasQuoted := false, false
	quoteLine := 0
	size := 0
	read := false
	for {
		b, err := c.r.ReadByte()
		if err == io.EOF {
			if quoted {
				return nil, start, &Error{Format: FormatCSV, Position: Position{Line: quoteLine},
					Message: "a quote opened here is never closed"}
			}
			if !read {
				return nil, start, io.EOF
			}
			c.line++
			return append(fields, string(c.field)), start, nil
		}
		if err != nil {
			return nil, start, fmt.Errorf("statement: read the CSV file: %w", err)
		}
		read = true
		if size++; size > maxRecordBytes {
			line := start
			if quoted {
				line = quoteLine
			}
			return nil, start, &Error{Format: FormatCSV, Position: Position{Line: line},
				Message: "a row is longer than 1 MiB (is a quote left open?)"}
		}
		if quoted {
			switch b {
			case '"':
				if nb, err := c.r.Peek(1); err == nil && nb[0] == '"' {
					_, _ = c.r.ReadByte() // Peek returned it
					c.field = append(c.field, '"')
					continue
				}
				quoted = false
			case '\n':
				c.line++
				c.field = append(c.field, b)
			default:
				c.field = append(c.field, b)
			}
			continue
		}
		switch {
		case b == c.delim:
			fields = append(fields, string(c.field))
			c.field = c.field[:0]
			wasQuoted = false
		case b == '\n':
			c.line++
			f := c.field
			if n := len(f); n > 0 && f[n-1] == '\r' {
				f = f[:n-1]
			}
			return append(fields, string(f)), start, nil
		case b == '\r':
			// A CR alone ends a line too, as old Mac programs write it.
			if nb, err := c.r.Peek(1); err != nil || nb[0] != '\n' {
				c.line++
				return append(fields, string(c.field)), start, nil
			}
			c.field = append(c.field, b)
		case b == '"' && len(c.field) == 0 && !wasQuoted:
			quoted, wasQuoted = true, true
			quoteLine = c.line + 1
		default:
			c.field = append(c.field, b)
		}
	}
}

// sniffDelimiter picks the delimiter (comma, semicolon, tab or pipe) that splits the
// lines of prefix into the same number of fields, more than one, most often; quoted
// text is skipped.
func sniffDelimiter(prefix []byte) byte {
	best, bestScore := byte(','), -1
	for _, d := range []byte{',', ';', '\t', '|'} {
		counts := map[int]int{}
		lines := 0
		n, quoted := 1, false
		for i, b := range prefix {
			switch {
			case b == '"':
				quoted = !quoted
			case quoted:
			case b == d:
				n++
			case b == '\n' || b == '\r' || i == len(prefix)-1:
				if n > 1 {
					counts[n]++
				}
				lines++
				n = 1
			}
			if lines >= 100 {
				break
			}
		}
		for fields, seen := range counts {
			// How many lines agree matters most; more fields breaks ties.
			if score := seen*64 + min(fields, 63); score > bestScore {
				best, bestScore = d, score
			}
		}
	}
	return best
}

func blankRecord(rec []string) bool {
	for _, f := range rec {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}
