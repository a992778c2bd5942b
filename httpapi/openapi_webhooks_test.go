package httpapi

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/webhooks"
)

// The document's webhooks describe every public event, each with the body schema
// package webhooks makes from the types it sends.
func TestOpenAPIWebhooks(t *testing.T) {
	var doc struct {
		Webhooks map[string]struct {
			Post struct {
				OperationID string `json:"operationId"`
				RequestBody struct {
					Content map[string]struct {
						Schema json.RawMessage `json:"schema"`
					} `json:"content"`
				} `json:"requestBody"`
			} `json:"post"`
		} `json:"webhooks"`
	}
	if err := json.Unmarshal(OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Webhooks) != len(domain.HookEvents) {
		t.Errorf("%d webhooks documented for %d public events", len(doc.Webhooks), len(domain.HookEvents))
	}
	for _, e := range webhooks.EventDocs() {
		hook, ok := doc.Webhooks[e.Name]
		if !ok || hook.Post.OperationID == "" {
			t.Errorf("%s is not documented", e.Name)
			continue
		}
		var got, want any
		if err := json.Unmarshal(hook.Post.RequestBody.Content["application/json"].Schema, &got); err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(e.Body)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the documented body is not the one package webhooks describes", e.Name)
		}
		version := want.(map[string]any)["properties"].(map[string]any)["dataVersion"].(map[string]any)["const"]
		if version != float64(e.Version) || e.Version < 1 {
			t.Errorf("%s: dataVersion %v, version %d", e.Name, version, e.Version)
		}
	}
}
