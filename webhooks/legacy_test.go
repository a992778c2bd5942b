package webhooks

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// The payload types send what subscribers received when the data was the stored event
// less its postings and effects: the same names, and the same fields with the same values.
func TestPayloadsSendWhatTheStoredEventsSent(t *testing.T) {
	for _, s := range storedSamples(t) {
		old, err := PublicEvents(s.typ, s.data)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		names, p, err := publicOf(s.typ, s.data)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		data, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		var oldNames []string
		for _, o := range old {
			oldNames = append(oldNames, o.Name)
			if !sameJSON(t, o.Data, data) {
				t.Errorf("%s: sent\n%s\nnow\n%s", s.name, o.Data, data)
			}
		}
		if !slices.Equal(oldNames, names) {
			t.Errorf("%s: told as %v, now %v", s.name, oldNames, names)
		}
	}
}

// sameJSON reports whether two JSON texts hold the same values, numbers as written.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	for _, x := range []struct {
		data []byte
		v    *any
	}{{a, &va}, {b, &vb}} {
		d := json.NewDecoder(bytes.NewReader(x.data))
		d.UseNumber()
		if err := d.Decode(x.v); err != nil {
			t.Fatalf("%s: %v", x.data, err)
		}
	}
	return reflect.DeepEqual(va, vb)
}
