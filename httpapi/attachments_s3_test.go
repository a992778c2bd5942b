package httpapi_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/finledger/finledger/attachments"
	"github.com/finledger/finledger/attachments/storetest"
	"github.com/finledger/finledger/httpapi"
	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/internal/testkit/s3server"
	"github.com/finledger/finledger/internal/testkit/testdb"
)

// Two instances on one database keep their files in one bucket: a receipt uploaded to
// one downloads from the other. While the bucket's server is down, uploads and downloads
// answer 503 with Retry-After, and nothing is attached; once it is back, the upload
// retried with its Idempotency-Key attaches the file once, and both serve it.
func TestAttachmentsInABucket(t *testing.T) {
	pool, bucket := testdb.Pool(t), s3server.Start(t)
	withBucket := func(opts *httpapi.Options) {
		store, err := attachments.NewS3(pool, bucket.Config())
		if err != nil {
			t.Fatal(err)
		}
		opts.Files = store
	}
	opts := apitest.Options()
	withBucket(&opts)
	env := apitest.StartOn(t, pool, opts)
	other := env.InstanceWith(withBucket)
	f := newLedger(t, env, "alice")
	tx := f.c.Post("/api/transactions", map[string]any{"amount": 420, "type": "expense", "walletId": f.cash, "date": "2026-03-01"}).
		Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	path := "/api/transactions/" + tx + "/attachments"
	onOther := f.c.On(other)

	receipt := storetest.PDF(t, 600<<10)
	first := f.c.With("Content-Type", "application/pdf").Post(path, receipt).Expect(t, http.StatusCreated).Object("attachment")
	if got := onOther.Get(path+"/"+first["id"].(string)).Expect(t, http.StatusOK); !bytes.Equal(got.Raw, receipt) {
		t.Fatalf("downloaded from the other instance %d bytes unlike the %d uploaded", len(got.Raw), len(receipt))
	}

	bucket.Stop()
	second := storetest.PDF(t, 300<<10)
	upload := func(c *apitest.Client) *apitest.Response {
		return c.With("Content-Type", "application/pdf").With("Idempotency-Key", "second-receipt").Post(path, second)
	}
	for _, r := range []*apitest.Response{upload(onOther), f.c.Get(path + "/" + first["id"].(string))} {
		expectError(t, r, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
		if r.Header.Get("Retry-After") == "" {
			t.Fatalf("503 without Retry-After: %v", r.Header)
		}
	}
	if list := f.c.Get(path).Expect(t, http.StatusOK).List("attachments"); len(list) != 1 {
		t.Fatalf("attached while the bucket was down: %v", list)
	}

	bucket.Resume(t)
	added := upload(onOther).Expect(t, http.StatusCreated).Object("attachment")
	if replayed := upload(f.c).Expect(t, http.StatusCreated); replayed.Object("attachment")["id"] != added["id"] {
		t.Fatalf("the upload retried: %s, want the first answer", replayed.Raw)
	}
	for _, c := range []*apitest.Client{f.c, onOther} {
		if got := c.Get(path+"/"+added["id"].(string)).Expect(t, http.StatusOK); !bytes.Equal(got.Raw, second) {
			t.Fatalf("downloaded %d bytes unlike the %d uploaded", len(got.Raw), len(second))
		}
	}
	if list := f.c.Get(path).Expect(t, http.StatusOK).List("attachments"); len(list) != 2 {
		t.Fatalf("attached: %v, want 2", list)
	}
}
