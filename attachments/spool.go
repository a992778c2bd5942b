package attachments

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxSize is the largest receipt file accepted, in bytes (20 MiB): a phone's photo or a
// scanned invoice is a few megabytes, and every byte of a file is kept for as long as
// the transaction that it is attached to.
const MaxSize = 20 << 20

// Errors of Spool, each the fault of the file sent.
var (
	// ErrEmpty is a file of no bytes.
	ErrEmpty = errors.New("attachments: the file is empty")
	// ErrTooLarge is a file past MaxSize.
	ErrTooLarge = fmt.Errorf("attachments: the file is larger than %d MiB", MaxSize>>20)
	// ErrKind is a file that is none of the kinds (JPEG, PNG, WebP, HEIC, PDF).
	ErrKind = errors.New("attachments: the file is not a JPEG, PNG, WebP, HEIC or PDF file")
)

// Upload is a receipt's file as it was sent, spooled to a temporary file: its hash, size
// and kind, and its bytes to read. The temporary file has no name in any folder, so it
// is gone once the Upload is closed, whatever becomes of the process.
type Upload struct {
	// SHA256 is the hash of the file's bytes, in lowercase hex: the content's name.
	SHA256 string
	// Size is the file's length in bytes, from 1 to MaxSize.
	Size int64
	// Kind is the file's format, told from its first bytes.
	Kind Kind

	file *os.File
}

// Read reads the file's bytes from where the last Read or Seek left off.
func (u *Upload) Read(p []byte) (int, error) { return u.file.Read(p) }

// Seek sets where the next Read starts, as io.Seeker says.
func (u *Upload) Seek(offset int64, whence int) (int64, error) { return u.file.Seek(offset, whence) }

// Close closes the temporary file, which frees its space: it has no name to remove.
func (u *Upload) Close() error { return u.file.Close() }

// whole returns a reader of the file's Size bytes from its start that leaves the offset
// of Read and Seek alone, so that a store reads the whole file however it was read before.
func (u *Upload) whole() io.Reader { return io.NewSectionReader(u.file, 0, u.Size) }

// Spool reads a receipt's file from r as it comes into a temporary file, computing its
// hash and size and telling its kind from its first bytes, and returns it open at its
// start; the caller closes it. It reads no more than it must: the first bytes of a file
// of another kind, MaxSize+1 bytes of one too large. It refuses a file with ErrEmpty,
// ErrTooLarge or ErrKind; an error of r comes back wrapped (errors.As finds an
// *http.MaxBytesError in it).
func Spool(r io.Reader) (*Upload, error) {
	body := io.LimitReader(r, MaxSize+1)
	head := make([]byte, headSize)
	n, err := io.ReadFull(body, head)
	switch {
	case errors.Is(err, io.EOF):
		return nil, ErrEmpty
	case errors.Is(err, io.ErrUnexpectedEOF):
		head = head[:n]
	case err != nil:
		return nil, fmt.Errorf("attachments: read the file: %w", err)
	}
	kind, ok := kindOf(head)
	if !ok {
		return nil, ErrKind
	}
	f, err := os.CreateTemp("", "finledger-attachment-*")
	if err != nil {
		return nil, fmt.Errorf("attachments: spool the file: %w", err)
	}
	// Unnamed at once, the file cannot outlive its Upload: no crash leaves it behind.
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("attachments: spool the file: %w", err)
	}
	u, err := spoolInto(f, head, body)
	if err != nil {
		f.Close()
		return nil, err
	}
	u.Kind = kind
	return u, nil
}

// spoolInto writes the head and the rest of the body into f, hashing them, and leaves f
// at its start.
func spoolInto(f *os.File, head []byte, body io.Reader) (*Upload, error) {
	hash := sha256.New()
	hash.Write(head)
	if _, err := f.Write(head); err != nil {
		return nil, fmt.Errorf("attachments: spool the file: %w", err)
	}
	rest, err := io.Copy(io.MultiWriter(f, hash), body)
	if err != nil {
		return nil, fmt.Errorf("attachments: spool the file: %w", err)
	}
	size := int64(len(head)) + rest
	if size > MaxSize {
		return nil, ErrTooLarge
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("attachments: spool the file: %w", err)
	}
	return &Upload{SHA256: hex.EncodeToString(hash.Sum(nil)), Size: size, file: f}, nil
}
