package ledger

import (
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
)

// The fields tagged secret are those the history's canonical text, and so its export,
// leaves out (eventstore.SecretFields): a secret added to an event without its
// commitment in the chain fails here. Only top-level fields can be left out.
func TestSecretFieldsAreLeftOutOfTheChain(t *testing.T) {
	tagged := map[string]string{}
	for _, name := range domain.EventTypes() {
		payload, err := domain.DecodeEvent(name, []byte("{}"))
		if err != nil {
			t.Fatal(err)
		}
		typ := reflect.TypeOf(payload).Elem()
		for _, f := range reflect.VisibleFields(typ) {
			if f.Tag.Get("secret") == "" {
				continue
			}
			if len(f.Index) != 1 {
				t.Errorf("%s.%s: a secret must be a field of the payload itself", typ, f.Name)
			}
			jsonName, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			tagged[name] = jsonName
		}
	}
	if want := eventstore.SecretFields(); !maps.Equal(tagged, want) {
		t.Fatalf("fields tagged secret %v; the chain leaves out %v", tagged, want)
	}
}
