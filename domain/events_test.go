package domain

import (
	"reflect"
	"testing"
)

// Every registered event names itself as the registry names it, and decodes as a
// pointer, the one form every switch on events handles.
func TestEveryEventTypeNamesItself(t *testing.T) {
	for _, name := range EventTypes() {
		e, err := DecodeEvent(name, []byte("{}"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if e.EventType() != name {
			t.Errorf("%s decodes into a %T, which names itself %s", name, e, e.EventType())
		}
		if reflect.ValueOf(e).Kind() != reflect.Pointer {
			t.Errorf("%s decodes into a %T, not a pointer", name, e)
		}
	}
}
