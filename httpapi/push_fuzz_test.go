package httpapi

import (
	"net/http"
	"testing"
)

// FuzzPushSubscriptionBody feeds arbitrary bytes through the PushSubscription reader,
// nested keys included: the answer is a value or a 400, never a panic.
func FuzzPushSubscriptionBody(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"endpoint":"https://push.example.net/x","keys":{"p256dh":"BAAA","auth":"AAAAAAAAAAAAAAAAAAAAAA"},"expirationTime":null}`,
		`{"keys":null}`, `{"keys":[]}`, `{"keys":{"keys":{"p256dh":1}}}`, `{"keys":{"p256dh":"===","auth":"\u0000"}}`,
		`{"expirationTime":1e400}`, `{"expirationTime":-0}`, `{"expirationTime":0e-999999999}`, `{"endpoint":"https://[::1"}`,
		`{"keys":{"p256dh":"BP____________________________________________________________________________________w"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := parseBody(data)
		if err != nil {
			return
		}
		b.rule = bodyRules["PushSubscribe"]
		in := pushSubscriptionInput(b)
		err = b.finish()
		if err != nil {
			if ae := toAPIError(err); ae.Status != http.StatusBadRequest || ae.Code != "VALIDATION_ERROR" {
				t.Fatalf("field error maps to %d %s", ae.Status, ae.Code)
			}
			return
		}
		if in.Endpoint == "" || in.P256dh == "" || in.Auth == "" {
			t.Fatalf("accepted without endpoint or keys: %q", data)
		}
	})
}
