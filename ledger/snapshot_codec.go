package ledger

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/finledger/finledger/domain"
	"github.com/shopspring/decimal"
)

// The snapshot form of a Workspace is binary and derived from its Go types by
// reflection, so that a field added to the state is kept without more code. JSON was
// the first candidate and far too slow at size when states held every transaction: a
// state of a million transactions took 17 s to encode (sorting map keys) and 3.4 s to
// decode, 294 MB, against 0.6 s and 0.5 s for 30 MB here. The form:
//   - every field of every struct, in declaration order, but those tagged
//     `snapshot:"-"`, which a decoded state has as their zero value. A struct with an
//     unexported field, or a field of a kind the form does not know (unsigned, float,
//     interface...), makes snapshots unavailable (workspaceCodec fails, and so does a
//     test) instead of losing the field silently;
//   - strings, byte arrays (ids) and decimals other than map keys are written once and
//     then referred to by number: records name the same few wallets, categories and
//     currencies, and amounts repeat;
//   - map entries in the order of their keys' bytes, so that a state has one encoding
//     and two states are equal when their encodings are (verify compares them so);
//   - dates (domain.Date, whose field is its own) as the strings they are written as,
//     "" for no date: as a state held them when they were strings;
//   - decimals exactly, as a coefficient and an exponent, scale included (1.50 is not
//     1.5): events keep the scale of every decimal (EncodePayload), so a cached state,
//     which folds a decided 1.50 as given, and the fold of the stored event agree to the
//     digit, and so must a snapshot of either;
//   - nil and empty maps and slices, and nil pointers and pointers to zero values, kept
//     apart.

// stateCodec encodes and decodes the values of one Go type. Values are addressable:
// the writer copies map keys and values into addressable values first.
type stateCodec struct {
	encode func(*snapshotWriter, reflect.Value)
	decode func(*snapshotReader, reflect.Value)
	// shape describes the type as the form sees it: field names and order, kinds.
	shape string
}

// keyCodec encodes map keys as themselves, never as references (they are unique within
// their map, and the raw bytes are what the entries are ordered by).
type keyCodec struct {
	encode func([]byte, reflect.Value) []byte
	decode func(*snapshotReader, reflect.Value)
}

var (
	decimalType = reflect.TypeFor[decimal.Decimal]()
	dateType    = reflect.TypeFor[domain.Date]()
)

// workspaceCodec is the codec of Workspace, or why the state cannot be snapshotted.
var workspaceCodec = sync.OnceValues(func() (*stateCodec, error) {
	return codecBuilder{}.of(reflect.TypeFor[domain.Workspace](), "Workspace")
})

// codecBuilder builds the codecs of a type and of the types it holds.
type codecBuilder map[reflect.Type]*stateCodec

func (b codecBuilder) of(t reflect.Type, path string) (*stateCodec, error) {
	if c, ok := b[t]; ok {
		return c, nil
	}
	switch {
	case t == decimalType:
		return &stateCodec{encode: encodeDecimal, decode: decodeDecimal, shape: "decimal"}, nil
	case t == dateType:
		return &stateCodec{encode: encodeDate, decode: decodeDate, shape: "date"}, nil
	case t.Kind() == reflect.Array && t.Elem().Kind() == reflect.Uint8:
		return &stateCodec{encode: encodeByteArray, decode: decodeByteArray, shape: t.String()}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return &stateCodec{encode: encodeBool, decode: decodeBool, shape: "bool"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &stateCodec{encode: encodeInt, decode: decodeInt, shape: t.Kind().String()}, nil
	case reflect.String:
		return &stateCodec{encode: encodeString, decode: decodeString, shape: "string"}, nil
	case reflect.Pointer:
		return b.pointer(t, path)
	case reflect.Slice:
		return b.slice(t, path)
	case reflect.Map:
		return b.mapOf(t, path)
	case reflect.Struct:
		return b.structOf(t, path)
	}
	return nil, fmt.Errorf("ledger: snapshot: %s is a %s, which snapshots cannot hold", path, t)
}

func (b codecBuilder) pointer(t reflect.Type, path string) (*stateCodec, error) {
	elem, err := b.of(t.Elem(), path)
	if err != nil {
		return nil, err
	}
	return &stateCodec{
		shape: "*" + elem.shape,
		encode: func(w *snapshotWriter, v reflect.Value) {
			if v.IsNil() {
				w.buf = append(w.buf, 0)
				return
			}
			w.buf = append(w.buf, 1)
			elem.encode(w, v.Elem())
		},
		decode: func(r *snapshotReader, v reflect.Value) {
			if !r.flag() {
				return
			}
			p := r.alloc(t.Elem())
			elem.decode(r, p.Elem())
			v.Set(p)
		},
	}, nil
}

func (b codecBuilder) slice(t reflect.Type, path string) (*stateCodec, error) {
	elem, err := b.of(t.Elem(), path+"[]")
	if err != nil {
		return nil, err
	}
	return &stateCodec{
		shape: "[]" + elem.shape,
		encode: func(w *snapshotWriter, v reflect.Value) {
			w.length(v.IsNil(), v.Len())
			for i := range v.Len() {
				elem.encode(w, v.Index(i))
			}
		},
		decode: func(r *snapshotReader, v reflect.Value) {
			n, ok := r.length()
			if !ok {
				return
			}
			s := reflect.MakeSlice(t, n, n)
			for i := range n {
				elem.decode(r, s.Index(i))
			}
			v.Set(s)
		},
	}, nil
}

func (b codecBuilder) mapOf(t reflect.Type, path string) (*stateCodec, error) {
	key, err := keyCodecOf(t.Key(), path)
	if err != nil {
		return nil, err
	}
	elem, err := b.of(t.Elem(), path+"[]")
	if err != nil {
		return nil, err
	}
	elemSlice := reflect.SliceOf(t.Elem())
	return &stateCodec{
		shape: "map[" + t.Key().String() + "]" + elem.shape,
		encode: func(w *snapshotWriter, v reflect.Value) {
			n := v.Len()
			w.length(v.IsNil(), n)
			if n == 0 {
				return
			}
			k, elems := reflect.New(t.Key()).Elem(), reflect.MakeSlice(elemSlice, n, n)
			raw := make([]byte, 0, n*int(t.Key().Size()))
			entries := make([]mapEntry, n)
			iter := v.MapRange()
			for i := 0; iter.Next(); i++ {
				k.SetIterKey(iter)
				elems.Index(i).SetIterValue(iter)
				start := len(raw)
				raw = key.encode(raw, k)
				var prefix [8]byte
				copy(prefix[:], raw[start:])
				entries[i] = mapEntry{prefix: binary.BigEndian.Uint64(prefix[:]), index: i, start: start, end: len(raw)}
			}
			// By the keys' bytes: their first eight as a number first, which is quicker.
			slices.SortFunc(entries, func(a, b mapEntry) int {
				if a.prefix != b.prefix {
					return cmp.Compare(a.prefix, b.prefix)
				}
				return bytes.Compare(raw[a.start:a.end], raw[b.start:b.end])
			})
			for _, e := range entries {
				w.buf = append(w.buf, raw[e.start:e.end]...)
				elem.encode(w, elems.Index(e.index))
			}
		},
		decode: func(r *snapshotReader, v reflect.Value) {
			n, ok := r.length()
			if !ok {
				return
			}
			m := reflect.MakeMapWithSize(t, n)
			k, e := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
			for range n {
				key.decode(r, k)
				e.SetZero()
				elem.decode(r, e)
				if r.err != nil {
					return
				}
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		},
	}, nil
}

// mapEntry places one entry of a map being encoded: its key's bytes in raw[start:end].
type mapEntry struct {
	prefix     uint64
	index      int
	start, end int
}

func (b codecBuilder) structOf(t reflect.Type, path string) (*stateCodec, error) {
	c := &stateCodec{shape: t.String()} // what a recursive reference sees
	b[t] = c
	fields := make([]*stateCodec, t.NumField())
	var shape strings.Builder
	shape.WriteString("struct{")
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Tag.Get("snapshot") == "-" {
			continue
		}
		if !f.IsExported() {
			delete(b, t)
			return nil, fmt.Errorf("ledger: snapshot: %s.%s is unexported, and snapshots would lose it", path, f.Name)
		}
		fc, err := b.of(f.Type, path+"."+f.Name)
		if err != nil {
			delete(b, t)
			return nil, err
		}
		fields[i] = fc
		fmt.Fprintf(&shape, "%s %s;", f.Name, fc.shape)
	}
	shape.WriteString("}")
	c.shape = shape.String()
	c.encode = func(w *snapshotWriter, v reflect.Value) {
		for i, f := range fields {
			if f != nil {
				f.encode(w, v.Field(i))
			}
		}
	}
	c.decode = func(r *snapshotReader, v reflect.Value) {
		for i, f := range fields {
			if f != nil {
				f.decode(r, v.Field(i))
			}
		}
	}
	return c, nil
}

func keyCodecOf(t reflect.Type, path string) (*keyCodec, error) {
	switch {
	case t.Kind() == reflect.Array && t.Elem().Kind() == reflect.Uint8:
		return &keyCodec{
			encode: func(raw []byte, v reflect.Value) []byte { return append(raw, v.Bytes()...) },
			decode: func(r *snapshotReader, v reflect.Value) { copy(v.Bytes(), r.bytes(v.Len())) },
		}, nil
	case t == dateType:
		// As the string it is written as, so that the keys sort as the dates do.
		return &keyCodec{
			encode: func(raw []byte, v reflect.Value) []byte {
				s := v.Interface().(domain.Date).String()
				return append(binary.AppendUvarint(raw, uint64(len(s))), s...)
			},
			decode: func(r *snapshotReader, v reflect.Value) {
				decodeDateText(r, v, string(r.bytes(r.count())))
			},
		}, nil
	case t.Kind() == reflect.String:
		return &keyCodec{
			encode: func(raw []byte, v reflect.Value) []byte {
				return append(binary.AppendUvarint(raw, uint64(v.Len())), v.String()...)
			},
			decode: func(r *snapshotReader, v reflect.Value) { v.SetString(string(r.bytes(r.count()))) },
		}, nil
	}
	return nil, fmt.Errorf("ledger: snapshot: %s has keys of type %s, which snapshots cannot hold", path, t)
}

func encodeBool(w *snapshotWriter, v reflect.Value) {
	if v.Bool() {
		w.buf = append(w.buf, 1)
	} else {
		w.buf = append(w.buf, 0)
	}
}

func decodeBool(r *snapshotReader, v reflect.Value) { v.SetBool(r.flag()) }

func encodeInt(w *snapshotWriter, v reflect.Value) { w.buf = binary.AppendVarint(w.buf, v.Int()) }

func decodeInt(r *snapshotReader, v reflect.Value) {
	x := r.varint()
	if v.OverflowInt(x) {
		r.fail("an integer out of range")
		return
	}
	v.SetInt(x)
}

func encodeString(w *snapshotWriter, v reflect.Value) { w.interned(v.String()) }

// encodeDate writes a date as the string it is written as ("" for no date), interned as
// strings are.
func encodeDate(w *snapshotWriter, v reflect.Value) { w.interned(v.Interface().(domain.Date).String()) }

func decodeDate(r *snapshotReader, v reflect.Value) { decodeDateText(r, v, r.interned()) }

func decodeDateText(r *snapshotReader, v reflect.Value, s string) {
	var d domain.Date
	if err := d.UnmarshalText([]byte(s)); err != nil {
		r.fail("a date that does not read")
		return
	}
	v.Set(reflect.ValueOf(d))
}

func decodeString(r *snapshotReader, v reflect.Value) { v.SetString(r.interned()) }

// Byte arrays are ids: interned as strings of their bytes.
func encodeByteArray(w *snapshotWriter, v reflect.Value) { w.interned(string(v.Bytes())) }

func decodeByteArray(r *snapshotReader, v reflect.Value) {
	s := r.interned()
	if r.err == nil && len(s) != v.Len() {
		r.fail("an id of the wrong length")
		return
	}
	copy(v.Bytes(), s)
}

// encodeDecimal writes a decimal as a reference to an equal one written before, or as
// its exponent and its coefficient's sign and magnitude: exactly as folded, scale
// included, so that two decimals encode alike when ExactString writes them alike (a
// positive exponent is written as 0, the number as an integer). Amounts repeat, and the
// decoded decimals share their coefficient, as decimals copied from one another do:
// shopspring/decimal never changes one in place.
func encodeDecimal(w *snapshotWriter, v reflect.Value) {
	d := *v.Addr().Interface().(*decimal.Decimal)
	if d.Exponent() > 0 {
		d = d.Round(0)
	}
	var digits []byte
	sign := uint64(0)
	if d.NumDigits() <= 18 { // an int64, without copying the coefficient
		x := d.CoefficientInt64()
		magnitude := uint64(x)
		if x < 0 {
			sign, magnitude = 1, uint64(-x)
		}
		var be [8]byte
		binary.BigEndian.PutUint64(be[:], magnitude)
		digits = be[bits.LeadingZeros64(magnitude)/8:]
	} else {
		c := d.Coefficient()
		if c.Sign() < 0 {
			sign = 1
		}
		digits = c.Bytes()
	}
	form := binary.AppendVarint(w.scratch[:0], int64(d.Exponent()))
	form = binary.AppendUvarint(form, uint64(len(digits))<<1|sign)
	form = append(form, digits...)
	w.scratch = form
	if i, ok := w.decimals[string(form)]; ok {
		w.buf = binary.AppendUvarint(w.buf, i+1)
		return
	}
	w.decimals[string(form)] = uint64(len(w.decimals))
	w.buf = append(append(w.buf, 0), form...)
}

func decodeDecimal(r *snapshotReader, v reflect.Value) {
	d := v.Addr().Interface().(*decimal.Decimal)
	ref := r.uvarint()
	if ref > 0 {
		if ref > uint64(len(r.decimals)) {
			r.fail("a reference to nothing")
			return
		}
		*d = r.decimals[ref-1]
		return
	}
	exp := r.varint()
	head := r.uvarint()
	if head>>1 > uint64(len(r.data)) {
		r.fail("truncated bytes")
		return
	}
	digits := r.bytes(int(head >> 1))
	if r.err != nil {
		return
	}
	if exp != int64(int32(exp)) {
		r.fail("a decimal exponent out of range")
		return
	}
	negative := head&1 == 1
	if len(digits) < 8 { // an int64: one allocation less
		var x int64
		for _, b := range digits {
			x = x<<8 | int64(b)
		}
		if negative {
			x = -x
		}
		*d = decimal.New(x, int32(exp))
	} else {
		c := new(big.Int).SetBytes(digits)
		if negative {
			c.Neg(c)
		}
		*d = decimal.NewFromBigInt(c, int32(exp))
	}
	r.decimals = append(r.decimals, *d)
}

// snapshotWriter accumulates an encoding.
type snapshotWriter struct {
	buf      []byte
	refs     map[string]uint64 // strings and ids written so far, by content
	decimals map[string]uint64 // decimals written so far, by their form
	scratch  []byte
}

// length writes a map's or slice's length, or that it is nil.
func (w *snapshotWriter) length(isNil bool, n int) {
	if isNil {
		w.buf = append(w.buf, 0)
		return
	}
	w.buf = binary.AppendUvarint(w.buf, uint64(n)+1)
}

// interned writes s as 0 and itself the first time, then as its number plus one.
func (w *snapshotWriter) interned(s string) {
	if i, ok := w.refs[s]; ok {
		w.buf = binary.AppendUvarint(w.buf, i+1)
		return
	}
	w.refs[s] = uint64(len(w.refs))
	w.buf = append(binary.AppendUvarint(append(w.buf, 0), uint64(len(s))), s...)
}

// snapshotReader reads an encoding. The first error sticks: later reads return zeros,
// and the caller checks err once at the end.
type snapshotReader struct {
	data     []byte
	seen     []string // interned strings and ids, in order
	decimals []decimal.Decimal
	slabs    map[reflect.Type]*slab
	err      error
	offset   int // of data within the whole encoding, for errors
}

// slab hands out the values a snapshot's pointers point to from arrays allocated a few
// hundred at a time: a state holds millions of them, and allocating them one by one
// was most of the time a decode took. An array stays in memory while any of its values
// is referenced, which the state does until it is dropped.
type slab struct {
	values reflect.Value // an array's worth of the type's values
	next   int
}

const slabSize = 256

// alloc returns a pointer to a new zero value of type t, as reflect.New does.
func (r *snapshotReader) alloc(t reflect.Type) reflect.Value {
	s := r.slabs[t]
	if s == nil {
		s = &slab{}
		r.slabs[t] = s
	}
	if !s.values.IsValid() || s.next == s.values.Len() {
		s.values, s.next = reflect.MakeSlice(reflect.SliceOf(t), slabSize, slabSize), 0
	}
	p := s.values.Index(s.next).Addr()
	s.next++
	return p
}

var errSnapshotCorrupt = errors.New("ledger: snapshot does not decode")

func (r *snapshotReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s at byte %d", errSnapshotCorrupt, what, r.offset)
	}
	r.data = nil
}

func (r *snapshotReader) advance(n int) {
	r.data = r.data[n:]
	r.offset += n
}

func (r *snapshotReader) uvarint() uint64 {
	x, n := binary.Uvarint(r.data)
	if n <= 0 {
		r.fail("a truncated number")
		return 0
	}
	r.advance(n)
	return x
}

func (r *snapshotReader) varint() int64 {
	x, n := binary.Varint(r.data)
	if n <= 0 {
		r.fail("a truncated number")
		return 0
	}
	r.advance(n)
	return x
}

func (r *snapshotReader) flag() bool {
	if len(r.data) == 0 || r.data[0] > 1 {
		r.fail("a bad flag")
		return false
	}
	b := r.data[0] == 1
	r.advance(1)
	return b
}

// count reads a number of things to follow, each of at least one byte, so a corrupt
// count fails here rather than allocating without bound.
func (r *snapshotReader) count() int {
	n := r.uvarint()
	if n > uint64(len(r.data)) {
		r.fail("a count beyond the data")
		return 0
	}
	return int(n)
}

// length reads what snapshotWriter.length wrote, checked like count; ok is false for
// nil.
func (r *snapshotReader) length() (n int, ok bool) {
	raw := r.uvarint()
	if raw == 0 {
		return 0, false
	}
	if raw-1 > uint64(len(r.data)) {
		r.fail("a length beyond the data")
		return 0, false
	}
	return int(raw - 1), true
}

func (r *snapshotReader) bytes(n int) []byte {
	if n > len(r.data) {
		r.fail("truncated bytes")
		return nil
	}
	b := r.data[:n]
	r.advance(n)
	return b
}

func (r *snapshotReader) interned() string {
	ref := r.uvarint()
	if ref == 0 {
		s := string(r.bytes(r.count()))
		r.seen = append(r.seen, s)
		return s
	}
	if ref > uint64(len(r.seen)) {
		r.fail("a reference to nothing")
		return ""
	}
	return r.seen[ref-1]
}

// encodeWorkspace returns the snapshot form of w.
func encodeWorkspace(w *domain.Workspace) ([]byte, error) {
	c, err := workspaceCodec()
	if err != nil {
		return nil, err
	}
	v := reflect.ValueOf(w).Elem()
	// Growing a buffer of tens of megabytes by doubling took as long as encoding into
	// it: guess the size from the records the state holds, some thirty bytes each.
	records := 0
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Map && v.Type().Field(i).Tag.Get("snapshot") != "-" {
			records += f.Len()
		}
	}
	wr := &snapshotWriter{buf: make([]byte, 0, 1024+32*records), refs: map[string]uint64{}, decimals: map[string]uint64{}}
	c.encode(wr, v)
	return wr.buf, nil
}

// decodeWorkspace reads what encodeWorkspace wrote.
func decodeWorkspace(data []byte) (*domain.Workspace, error) {
	c, err := workspaceCodec()
	if err != nil {
		return nil, err
	}
	w := &domain.Workspace{}
	r := &snapshotReader{data: data, slabs: map[reflect.Type]*slab{}}
	c.decode(r, reflect.ValueOf(w).Elem())
	if r.err == nil && len(r.data) > 0 {
		r.fail("bytes after the end")
	}
	if r.err != nil {
		return nil, r.err
	}
	return w, nil
}

// snapshotShape fingerprints the Workspace as the snapshot form sees it: a snapshot
// written for another shape is never read.
func snapshotShape() (string, error) {
	c, err := workspaceCodec()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(c.shape))
	return hex.EncodeToString(sum[:8]), nil
}
