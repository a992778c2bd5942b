package statement

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fuzzers are seeded with testdata's sample files. Run one for minutes with
//
//	go test ./statement -run '^$' -fuzz FuzzCSV -fuzztime 5m
//
// (or FuzzQIF); plain go test runs the seeds.

func seedFiles(f *testing.F, ext string) {
	f.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*"+ext))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no %s seeds: %v", ext, err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// checkReader reads r to its end and checks every row it yields; a reader may refuse a
// file, but only with the errors it documents.
func checkReader(t *testing.T, r Reader, err error) {
	t.Helper()
	if err != nil {
		checkError(t, err)
		return
	}
	var last error
	for range 100_000 {
		row, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			checkError(t, err)
			if err == last { // an error in the file's structure: it stays
				return
			}
			last = err
			continue
		}
		if row.Date.IsZero() || row.Date.Year() < 1 || row.Date.Year() > 9999 {
			t.Fatalf("row at %s has no valid date: %v", row.Position, row.Date)
		}
		if row.Position.Line < 1 {
			t.Fatalf("row has no line: %+v", row)
		}
		if len(row.Splits) > 0 {
			sum := row.Splits[0].Amount
			for _, s := range row.Splits[1:] {
				sum = sum.Add(s.Amount)
			}
			if !sum.Equal(row.Amount) {
				t.Fatalf("splits add up to %s, amount %s", sum, row.Amount)
			}
		}
		// The amount is an exact decimal: its text reads back as the same number.
		if s := row.Amount.String(); !strings.ContainsAny(s, "0123456789") {
			t.Fatalf("amount %q", s)
		}
	}
}

func checkError(t *testing.T, err error) {
	t.Helper()
	var se *Error
	var me *MappingRequiredError
	var oe *DateOrderRequiredError
	var ee *EncodingError
	switch {
	case errors.As(err, &se):
		if se.Position.Line < 1 || se.Message == "" {
			t.Fatalf("error without a line or a message: %#v", se)
		}
	case errors.As(err, &me), errors.As(err, &ee):
	case errors.As(err, &oe):
		if oe.Line < 1 {
			t.Fatalf("date order asked without a line: %#v", oe)
		}
	default:
		t.Fatalf("undocumented error %T: %v", err, err)
	}
}

func FuzzCSV(f *testing.F) {
	seedFiles(f, ".csv")
	f.Add([]byte("Fecha;Importe\n01/02/2024;1.234\n"))
	f.Add([]byte("date,amount,memo\n2024-01-01,\"(1,00 €)\",\"a\"\"b\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewCSV(bytes.NewReader(b), CSVOptions{})
		checkReader(t, r, err)
		r, err = NewCSV(bytes.NewReader(b), CSVOptions{Mapping: &CSVMapping{Date: 1, Debit: 2, Credit: 3}, DateOrder: DateOrderDMY})
		checkReader(t, r, err)
	})
}

func FuzzQIF(f *testing.F) {
	seedFiles(f, ".qif")
	f.Add([]byte("!Type:Bank\nD1/ 2'05\nT-1,00\nSA\n$-0,50\nE\n$-0,50\n^\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewQIF(bytes.NewReader(b), QIFOptions{})
		checkReader(t, r, err)
	})
}
