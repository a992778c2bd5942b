package ledger

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/finledger/finledger/domain"
	"github.com/shopspring/decimal"
)

// fillPayload sets every field v holds that reflect can set, pointers, slices and maps
// made with one element, and calls decimal for every decimal, in order.
func fillPayload(v reflect.Value, decimal func() decimal.Decimal) {
	if v.Type() == decimalType {
		v.Set(reflect.ValueOf(decimal()))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillPayload(v.Elem(), decimal)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillPayload(v.Field(i), decimal)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fillPayload(v.Index(0), decimal)
	case reflect.Array:
		for i := range v.Len() {
			fillPayload(v.Index(i), decimal)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillPayload(k, decimal)
		fillPayload(e, decimal)
		v.SetMapIndex(k, e)
	case reflect.String:
		v.SetString("text")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(7)
	case reflect.Uint8:
		v.SetUint(0xab)
	}
}

// exactDecimals lists every decimal v holds, with its scale (ExactString), in order.
func exactDecimals(v reflect.Value) []string {
	if v.Type() == decimalType {
		return []string{domain.ExactString(v.Interface().(decimal.Decimal))}
	}
	var out []string
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			out = exactDecimals(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				out = append(out, exactDecimals(v.Field(i))...)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			out = append(out, exactDecimals(v.Index(i))...)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			out = append(out, exactDecimals(it.Value())...)
		}
	}
	return out
}

// Every decimal of every event type comes back from the stored event as decided, scale
// included (1.10 stays 1.10, 100.00 stays 100.00), and nothing else of the JSON changes:
// without trailing zeros, EncodePayload writes what json.Marshal writes.
func TestEveryEventKeepsItsDecimalsScale(t *testing.T) {
	scaled := []string{"1.10", "100.00", "0.50", "-2.500", "0.0000", "12345678901234567890.10"}
	decimals := 0
	for _, name := range domain.EventTypes() {
		payload := fresh(t, name)
		n := 0
		fillPayload(reflect.ValueOf(payload).Elem(), func() decimal.Decimal { n++; return dec(scaled[(n-1)%len(scaled)]) })
		want := exactDecimals(reflect.ValueOf(payload))
		decimals += len(want)
		data, err := EncodePayload(payload)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		back, err := domain.DecodeEvent(name, data)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, data)
		}
		if got := exactDecimals(reflect.ValueOf(back)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decimals %v, want %v\n%s", name, got, want, data)
		}

		plain := fresh(t, name)
		fillPayload(reflect.ValueOf(plain).Elem(), func() decimal.Decimal { return dec("1.25") })
		exact, err := EncodePayload(plain)
		if err != nil {
			t.Fatal(err)
		}
		if std, _ := json.Marshal(plain); string(exact) != string(std) {
			t.Errorf("%s: EncodePayload\n %s\nwhere json.Marshal writes\n %s", name, exact, std)
		}
	}
	if decimals < 30 {
		t.Fatalf("%d decimals in all the event types: the walk misses some", decimals)
	}
}

// fresh returns an empty payload of the event type name.
func fresh(t *testing.T, name string) domain.Event {
	t.Helper()
	e, err := domain.DecodeEvent(name, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// A partial update writes the decimals it sets with their scale, and null for one it
// clears.
func TestPartialUpdateKeepsItsDecimalsScale(t *testing.T) {
	if data, err := EncodePayload(&domain.TransactionUpdated{Changes: domain.TransactionChanges{Amount: domain.Of(dec("1.10")),
		DestinationAmount: domain.Null[decimal.Decimal]()}}); err != nil || !strings.Contains(string(data), `"amount":"1.10","destinationAmount":null`) {
		t.Errorf("a partial update: %s %v", data, err)
	}
}
