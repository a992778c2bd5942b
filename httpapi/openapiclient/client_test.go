package openapiclient_test

import (
	"bytes"
	"context"
	"flag"
	"net/http"
	"os"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oapi-codegen/oapi-codegen/v2/pkg/codegen"

	"github.com/finledger/finledger/httpapi"
	"github.com/finledger/finledger/httpapi/openapiclient"
	"github.com/finledger/finledger/internal/testkit/apitest"
)

var update = flag.Bool("update", false, "rewrite client.gen.go from the served document")

// generated is what oapi-codegen makes of the served document.
func generated(t *testing.T) []byte {
	t.Helper()
	spec, err := openapi3.NewLoader().LoadFromData(httpapi.OpenAPIDocument())
	if err != nil {
		t.Fatalf("oapi-codegen's loader refuses the document: %v", err)
	}
	code, err := codegen.Generate(spec, codegen.Configuration{PackageName: "openapiclient",
		Generate: codegen.GenerateOptions{Client: true, Models: true}})
	if err != nil {
		t.Fatalf("oapi-codegen cannot generate a client from the document: %v", err)
	}
	return []byte(code)
}

// The committed client is what the document generates: it cannot drift from it.
func TestClientIsGenerated(t *testing.T) {
	code := generated(t)
	if *update {
		if err := os.WriteFile("client.gen.go", code, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	committed, err := os.ReadFile("client.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(code, committed) {
		t.Fatal("client.gen.go is not what the served document generates: run go test ./httpapi/openapiclient -run TestClientIsGenerated -update")
	}
}

// The generated client creates a wallet and a transaction and lists transactions on a
// real server (whose exchanges the contract check also validates).
func TestClientScenario(t *testing.T) {
	env := apitest.Start(t)
	token := env.Token("client-user", "client@example.com")
	client, err := openapiclient.NewClientWithResponses(env.URL, openapiclient.WithRequestEditorFn(
		func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+token)
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	// Only the name: the fields with defaults are optional.
	created, err := client.PostWalletsWithResponse(ctx, nil, openapiclient.PostWalletsJSONRequestBody{Name: "Cash"})
	if err != nil || created.JSON200 == nil {
		t.Fatalf("create wallet: %v, status %d: %s", err, created.StatusCode(), created.Body)
	}
	wallet := created.JSON200.Wallet
	if wallet.Type != openapiclient.WalletTypeCash || wallet.Currency != "MXN" || wallet.CardColor != "#111827" {
		t.Fatalf("wallet defaults: %+v", wallet)
	}

	concept := "tacos"
	key := "scenario-expense-1"
	tx, err := client.PostTransactionsWithResponse(ctx, &openapiclient.PostTransactionsParams{IdempotencyKey: &key},
		openapiclient.PostTransactionsJSONRequestBody{Type: openapiclient.PostTransactionsJSONBodyTypeExpense, Amount: 12.5,
			Concept: &concept, WalletId: &wallet.Id})
	if err != nil || tx.JSON201 == nil {
		t.Fatalf("create transaction: %v, status %d: %s", err, tx.StatusCode(), tx.Body)
	}
	if got := tx.JSON201.Transaction; got.WalletId != wallet.Id || got.Type != openapiclient.TransactionTypeExpense || got.Amount != 12.5 {
		t.Fatalf("transaction: %+v", got)
	}
	replayed, err := client.PostTransactionsWithResponse(ctx, &openapiclient.PostTransactionsParams{IdempotencyKey: &key},
		openapiclient.PostTransactionsJSONRequestBody{Type: openapiclient.PostTransactionsJSONBodyTypeExpense, Amount: 12.5,
			Concept: &concept, WalletId: &wallet.Id})
	if err != nil || replayed.JSON201 == nil || replayed.HTTPResponse.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %v, status %d: %s", err, replayed.StatusCode(), replayed.Body)
	}

	size := 10
	listing, err := client.GetTransactionsWithResponse(ctx, &openapiclient.GetTransactionsParams{WalletId: &wallet.Id, PageSize: &size})
	if err != nil || listing.JSON200 == nil {
		t.Fatalf("list transactions: %v, status %d: %s", err, listing.StatusCode(), listing.Body)
	}
	if n := len(listing.JSON200.Transactions); n != 1 || listing.JSON200.Pagination.Total != 1 || listing.JSON200.Pagination.Limit != 10 {
		t.Fatalf("listing: %+v", listing.JSON200)
	}

	// An error answer is typed too: the validation details are FieldError entries.
	bad, err := client.PostWalletsWithResponse(ctx, nil, openapiclient.PostWalletsJSONRequestBody{Name: ""})
	if err != nil || bad.JSON400 == nil {
		t.Fatalf("invalid wallet: %v, status %d: %s", err, bad.StatusCode(), bad.Body)
	}
	fields, err := bad.JSON400.Error.Details.AsValidationErrorErrorDetails0()
	if err != nil || len(fields) != 1 || fields[0].Field != "name" {
		t.Fatalf("details %s: %v", bad.Body, err)
	}
}
