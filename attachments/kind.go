package attachments

import (
	"bytes"
	"encoding/binary"
)

// Kind is the format of a receipt's file, told from its first bytes alone: a file's
// name and the type its sender declares say nothing the service trusts.
type Kind string

// The kinds a receipt comes in. Any other file is refused (ErrKind).
const (
	JPEG Kind = "jpeg"
	PNG  Kind = "png"
	WebP Kind = "webp"
	HEIC Kind = "heic" // HEIC and the other HEIF images
	PDF  Kind = "pdf"
)

// Kinds are the kinds a receipt comes in, in the order the API lists them.
var Kinds = []Kind{JPEG, PNG, WebP, HEIC, PDF}

// MIME returns the media type a download of the kind is served with. A kind this
// package never gives (none is stored) has application/octet-stream, which no browser
// renders.
func (k Kind) MIME() string {
	switch k {
	case JPEG:
		return "image/jpeg"
	case PNG:
		return "image/png"
	case WebP:
		return "image/webp"
	case HEIC:
		return "image/heic"
	case PDF:
		return "application/pdf"
	}
	return "application/octet-stream"
}

// headSize is how many first bytes of a file tell its kind: every signature lies within
// them, and so does a HEIF file's whole ftyp box, which lists a few brands.
const headSize = 256

var (
	jpegSignature = []byte{0xFF, 0xD8, 0xFF}
	pngSignature  = []byte{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}
	pdfSignature  = []byte("%PDF-")
)

// heifBrands are the ISO BMFF brands of HEIF images: HEVC-coded ones (heic, heix and
// their sequences) and the generic image and sequence brands (mif1, msf1).
var heifBrands = map[string]bool{
	"heic": true, "heix": true, "heim": true, "heis": true,
	"hevc": true, "hevx": true, "mif1": true, "msf1": true,
}

// kindOf tells a file's kind from its head (its first headSize bytes, or the whole file
// when shorter). Each signature must open the file: a PDF header after an HTML page, for
// one, is not a PDF, whatever a lenient reader would make of it.
func kindOf(head []byte) (Kind, bool) {
	switch {
	case bytes.HasPrefix(head, jpegSignature):
		return JPEG, true
	case bytes.HasPrefix(head, pngSignature):
		return PNG, true
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return WebP, true
	case isHEIF(head):
		return HEIC, true
	case bytes.HasPrefix(head, pdfSignature):
		return PDF, true
	}
	return "", false
}

// isHEIF tells whether head opens with an ISO BMFF ftyp box (its 32-bit size, "ftyp",
// the major brand, a minor version, then compatible brands to the box's end) whose major
// or compatible brands name a HEIF image. A box that does not fit in the head is refused.
func isHEIF(head []byte) bool {
	if len(head) < 16 || string(head[4:8]) != "ftyp" {
		return false
	}
	size := binary.BigEndian.Uint32(head[:4])
	if size < 16 || size%4 != 0 || size > uint32(len(head)) {
		return false
	}
	if heifBrands[string(head[8:12])] {
		return true
	}
	for i := 16; i < int(size); i += 4 {
		if heifBrands[string(head[i:i+4])] {
			return true
		}
	}
	return false
}
