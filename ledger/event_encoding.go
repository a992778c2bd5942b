package ledger

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
)

// An event keeps every decimal as it was decided, scale included: an amount sent as 1.10
// is stored as "1.10", so that the fold of the stored event and a replay of the read
// models give what the command gave, byte for byte. decimal.Decimal's own MarshalJSON
// drops trailing zeros ("1.1"), and encoding/json has no way to replace a type's
// marshaller, so EncodePayload marshals a mirror of the payload: the same type built
// again by reflection, decimal.Decimal replaced by exactDecimal, whose JSON keeps the
// scale. Everything else is encoding/json's own rules (names, omitempty, embedded
// structs), read from the same struct tags. Decoding needs nothing of the kind:
// decimal.NewFromString keeps the scale it reads.

// exactDecimal is a decimal that marshals to JSON with its scale (domain.ExactString).
type exactDecimal decimal.Decimal

// MarshalJSON writes the decimal as a JSON string, as decimal.Decimal does, but with
// its scale.
func (d exactDecimal) MarshalJSON() ([]byte, error) {
	return fmt.Appendf(nil, `"%s"`, domain.ExactString(decimal.Decimal(d))), nil
}

var (
	exactDecimalType    = reflect.TypeFor[exactDecimal]()
	nullableDecimalType = reflect.TypeFor[domain.Nullable[decimal.Decimal]]()
	nullableExactType   = reflect.TypeFor[domain.Nullable[exactDecimal]]()
	jsonMarshalerType   = reflect.TypeFor[json.Marshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
)

// EncodePayload writes an event's payload as JSON with every decimal's scale kept.
func EncodePayload(data any) ([]byte, error) {
	v := reflect.ValueOf(data)
	if !v.IsValid() {
		return json.Marshal(data)
	}
	mirror, err := exactMirror(v.Type())
	if err != nil {
		return nil, err
	}
	if mirror == v.Type() {
		return json.Marshal(data)
	}
	out := reflect.New(mirror).Elem()
	copyExact(out, v)
	return json.Marshal(out.Interface())
}

// exactMirrors caches exactMirror's answers (reflect.Type to a mirrorAnswer).
var exactMirrors sync.Map

type mirrorAnswer struct {
	t   reflect.Type
	err error
}

// exactMirror returns t with every decimal.Decimal it holds replaced by exactDecimal,
// or t itself when it holds none. A type with a JSON or text marshaller of its own is
// left as it is (its marshaller decides), but for domain.Nullable[decimal.Decimal].
func exactMirror(t reflect.Type) (reflect.Type, error) {
	if a, ok := exactMirrors.Load(t); ok {
		return a.(mirrorAnswer).t, a.(mirrorAnswer).err
	}
	m, err := buildExactMirror(t)
	exactMirrors.Store(t, mirrorAnswer{m, err})
	return m, err
}

func buildExactMirror(t reflect.Type) (reflect.Type, error) {
	switch {
	case t == decimalType:
		return exactDecimalType, nil
	case t == nullableDecimalType:
		return nullableExactType, nil
	case t.Kind() == reflect.Pointer:
		elem, err := exactMirror(t.Elem())
		if err != nil || elem == t.Elem() {
			return t, err
		}
		return reflect.PointerTo(elem), nil
	case t.Implements(jsonMarshalerType) || t.Implements(textMarshalerType):
		return t, nil
	}
	switch t.Kind() {
	case reflect.Slice:
		elem, err := exactMirror(t.Elem())
		if err != nil || elem == t.Elem() {
			return t, err
		}
		return reflect.SliceOf(elem), nil
	case reflect.Map:
		elem, err := exactMirror(t.Elem())
		if err != nil || elem == t.Elem() {
			return t, err
		}
		return reflect.MapOf(t.Key(), elem), nil
	case reflect.Struct:
		fields := make([]reflect.StructField, t.NumField())
		changed := false
		for i := range fields {
			f := t.Field(i)
			ft, err := exactMirror(f.Type)
			if err != nil {
				return t, err
			}
			changed = changed || ft != f.Type
			fields[i] = reflect.StructField{Name: f.Name, Type: ft, Tag: f.Tag, Anonymous: f.Anonymous}
		}
		if !changed {
			return t, nil
		}
		// The mirror is set field by field, which reflect allows of exported fields only.
		for i := range fields {
			if !t.Field(i).IsExported() {
				return t, fmt.Errorf("ledger: %s holds decimals beside the unexported field %s", t, t.Field(i).Name)
			}
		}
		return reflect.StructOf(fields), nil
	}
	return t, nil
}

// copyExact sets dst, of src's exactMirror type, to src.
func copyExact(dst, src reflect.Value) {
	switch {
	case dst.Type() == src.Type():
		dst.Set(src)
		return
	case src.Type() == decimalType:
		dst.Set(src.Convert(exactDecimalType))
		return
	case src.Type() == nullableDecimalType:
		n := src.Interface().(domain.Nullable[decimal.Decimal])
		dst.Set(reflect.ValueOf(domain.Nullable[exactDecimal]{Set: n.Set, Valid: n.Valid, Value: exactDecimal(n.Value)}))
		return
	}
	switch src.Kind() {
	case reflect.Pointer:
		if !src.IsNil() {
			dst.Set(reflect.New(dst.Type().Elem()))
			copyExact(dst.Elem(), src.Elem())
		}
	case reflect.Slice:
		if !src.IsNil() {
			dst.Set(reflect.MakeSlice(dst.Type(), src.Len(), src.Len()))
			for i := range src.Len() {
				copyExact(dst.Index(i), src.Index(i))
			}
		}
	case reflect.Map:
		if !src.IsNil() {
			dst.Set(reflect.MakeMapWithSize(dst.Type(), src.Len()))
			for it := src.MapRange(); it.Next(); {
				v := reflect.New(dst.Type().Elem()).Elem()
				copyExact(v, it.Value())
				dst.SetMapIndex(it.Key(), v)
			}
		}
	case reflect.Struct:
		for i := range src.NumField() {
			copyExact(dst.Field(i), src.Field(i))
		}
	}
}
