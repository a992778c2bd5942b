package main

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// A client on the relay's standard input and output sees the key's tools and calls
// them; a key revoked meanwhile is an error the client hears, and the relay goes on.
func TestMCPRelay(t *testing.T) {
	ctx := context.Background()
	env := apitest.Start(t)
	alice := env.As("alice")
	alice.Post("/api/wallets", map[string]any{"name": "Cash", "balance": 100, "isDefault": true}).Expect(t, http.StatusOK)
	created := alice.Post("/api/api-keys", map[string]any{"name": "desktop", "scopes": []string{"transactions:read", "transactions:write"}}).
		Expect(t, http.StatusOK)
	key, keyID := created.JSON["plaintext"].(string), created.Object("apiKey")["id"].(string)

	clientIn, relayOut := io.Pipe()
	relayIn, clientOut := io.Pipe()
	relay := &mcpRelay{endpoint: env.URL + "/mcp", key: key, client: http.DefaultClient}
	done := make(chan error, 1)
	go func() {
		done <- relay.run(ctx, relayIn, relayOut)
		_ = relayOut.Close()
	}()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "desktop", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	list, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if slices.Sort(names); strings.Join(names, ",") != "categorize_transaction,create_transaction,delete_transaction,list_changes,list_transactions,search_transactions" {
		t.Errorf("the key sees %v", names)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "create_transaction", Arguments: map[string]any{"type": "expense", "amount": 12.5, "concept": "Taxi"}})
	if err != nil || res.IsError {
		t.Fatalf("create_transaction: %v %v", err, res)
	}
	if txs := alice.Get("/api/transactions").List("transactions"); len(txs) != 1 || txs[0]["concept"] != "Taxi" {
		t.Errorf("transactions %v", txs)
	}

	alice.Delete("/api/api-keys/"+keyID).Expect(t, http.StatusOK)
	if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "list_transactions"}); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("a revoked key's call: %v", err)
	}
	if err := session.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("the relay ended with %v", err)
	}
}
