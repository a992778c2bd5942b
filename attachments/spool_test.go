package attachments_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/finledger/finledger/attachments"
	"github.com/finledger/finledger/attachments/storetest"
)

// spool spools r with the temporary folder set to one of t's own, and fails t if that
// folder holds anything once Spool returns, upload or no upload: the spooled file has no
// name from the start.
func spool(t *testing.T, r io.Reader) (*attachments.Upload, error) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	u, err := attachments.Spool(r)
	if u != nil {
		t.Cleanup(func() { u.Close() })
	}
	left, rerr := os.ReadDir(dir)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if len(left) != 0 {
		t.Fatalf("the temporary folder holds %d files after Spool", len(left))
	}
	return u, err
}

// ftyp is an ISO BMFF file's first box, naming its major brand and compatible brands,
// followed by a few bytes.
func ftyp(major string, compatible ...string) []byte {
	box := []byte{0, 0, 0, byte(16 + 4*len(compatible)), 'f', 't', 'y', 'p'}
	box = append(box, major...)
	box = append(box, 0, 0, 0, 0)
	for _, b := range compatible {
		box = append(box, b...)
	}
	return append(box, 0, 0, 0, 8, 'm', 'e', 't', 'a')
}

// webp is a WebP file's RIFF header and the start of its first chunk.
func webp() []byte {
	data := []byte("RIFF\x00\x00\x00\x00WEBPVP8 \x0a\x00\x00\x00\x10\x02\x00\x9d\x01\x2a\x01\x00\x01\x00")
	data[4] = byte(len(data) - 8)
	return data
}

// Each kind is told from the first bytes of a real file of it, and nothing else.
func TestSpoolKinds(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		kind attachments.Kind
		mime string
	}{
		{"JPEG", []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"), attachments.JPEG, "image/jpeg"},
		{"PNG", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"), attachments.PNG, "image/png"},
		{"WebP", webp(), attachments.WebP, "image/webp"},
		{"HEIC", ftyp("heic", "mif1", "heic"), attachments.HEIC, "image/heic"},
		{"HEIFOfGenericBrand", ftyp("mif1", "miaf"), attachments.HEIC, "image/heic"},
		{"HEIFByCompatibleBrand", ftyp("miaf", "MiHB", "hevc"), attachments.HEIC, "image/heic"},
		{"PDF", []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"), attachments.PDF, "application/pdf"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, err := spool(t, bytes.NewReader(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if u.Kind != tc.kind || u.Kind.MIME() != tc.mime {
				t.Fatalf("kind %q (%s), want %q (%s)", u.Kind, u.Kind.MIME(), tc.kind, tc.mime)
			}
		})
	}
}

// A file of any other kind is refused, whatever it holds further on.
func TestSpoolRefusesOtherKinds(t *testing.T) {
	tests := []struct {
		name string
		data string
	}{
		{"HTML", "<!DOCTYPE html><html><body><script>alert(1)</script></body></html>"},
		{"SVG", `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`},
		{"BareSVG", `<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`},
		{"XML", `<?xml version="1.0"?><receipt total="12.50"/>`},
		{"Text", "Receipt\nCoffee 3.20 EUR\n"},
		{"PDFHeaderAfterHTML", "<html><body>receipt</body></html>\n%PDF-1.4\n1 0 obj\n<< >>\nendobj\n"},
		{"PDFHeaderNotFirst", "\n%PDF-1.4\n"},
		{"ZIP", "PK\x03\x04\x14\x00\x00\x00\x08\x00"},
		{"MP4", string(ftyp("isom", "isom", "iso2", "mp41"))},
		{"FtypBoxPastTheFile", "\x00\x10\x00\x00ftypheic\x00\x00\x00\x00mif1"},
		{"RIFFOfAnotherKind", "RIFF\x24\x00\x00\x00WAVEfmt "},
		{"JPEGSignatureCut", "\xff\xd8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := spool(t, strings.NewReader(tc.data)); !errors.Is(err, attachments.ErrKind) {
				t.Fatalf("%v, want ErrKind", err)
			}
		})
	}
}

// A file of another kind is refused from its first bytes, without reading the rest.
func TestSpoolRefusesFromTheFirstBytes(t *testing.T) {
	body := &counter{r: strings.NewReader("<html>" + strings.Repeat("<p>receipt</p>", 1<<16))}
	if _, err := spool(t, body); !errors.Is(err, attachments.ErrKind) {
		t.Fatalf("%v, want ErrKind", err)
	}
	if body.n > 1<<10 {
		t.Fatalf("read %d bytes of a file refused by its first ones", body.n)
	}
}

func TestSpoolEmpty(t *testing.T) {
	if _, err := spool(t, strings.NewReader("")); !errors.Is(err, attachments.ErrEmpty) {
		t.Fatalf("%v, want ErrEmpty", err)
	}
}

// A file past MaxSize is refused once MaxSize+1 bytes are read, however long its body;
// one of MaxSize is taken.
func TestSpoolTooLarge(t *testing.T) {
	body := &counter{r: io.MultiReader(strings.NewReader("%PDF-1.7\n"), zeros{})}
	if _, err := spool(t, body); !errors.Is(err, attachments.ErrTooLarge) {
		t.Fatalf("%v, want ErrTooLarge", err)
	}
	if body.n != attachments.MaxSize+1 {
		t.Fatalf("read %d bytes, want MaxSize+1 = %d", body.n, attachments.MaxSize+1)
	}
	u, err := spool(t, io.MultiReader(strings.NewReader("%PDF-1.7\n"), io.LimitReader(zeros{}, attachments.MaxSize-9)))
	if err != nil {
		t.Fatalf("a file of MaxSize: %v", err)
	}
	if u.Size != attachments.MaxSize {
		t.Fatalf("size %d, want %d", u.Size, attachments.MaxSize)
	}
}

// The upload gives the file's hash, its size, and its bytes from the start, as often as
// it is sought back.
func TestSpoolHashSizeAndBytes(t *testing.T) {
	data := storetest.PDF(t, 700<<10)
	u, err := spool(t, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if u.SHA256 != hex.EncodeToString(sum[:]) || u.Size != int64(len(data)) || u.Kind != attachments.PDF {
		t.Fatalf("upload %s of %d bytes, kind %q; want %x of %d bytes, kind pdf", u.SHA256, u.Size, u.Kind, sum, len(data))
	}
	for range 2 {
		got, err := io.ReadAll(u)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("read %d bytes unlike the %d sent", len(got), len(data))
		}
		if _, err := u.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
	}
}

// An error of the body comes back wrapped, so that the HTTP layer tells a body past its
// limit from a broken one.
func TestSpoolBodyErrors(t *testing.T) {
	broken := errors.New("connection reset")
	body := io.MultiReader(bytes.NewReader(storetest.PDF(t, 100<<10)), &failing{err: broken})
	if _, err := spool(t, body); !errors.Is(err, broken) {
		t.Fatalf("%v, want the body's error", err)
	}
	limited := http.MaxBytesReader(nil, io.NopCloser(bytes.NewReader(storetest.PDF(t, 100<<10))), 50<<10)
	var tooLarge *http.MaxBytesError
	if _, err := spool(t, limited); !errors.As(err, &tooLarge) {
		t.Fatalf("%v, want an *http.MaxBytesError", err)
	}
}

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// zeros is a body that never ends.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// failing is a body that breaks.
type failing struct{ err error }

func (f *failing) Read([]byte) (int, error) { return 0, f.err }
