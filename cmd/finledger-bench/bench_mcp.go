package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/finledger/finledger/internal/latency"
)

// mcpWarmup are the calls of each kind made before the timed ones: the server's
// connections, caches and the workspace's state are warm when timing starts.
const mcpWarmup = 20

// benchMCP measures what a tool call costs over its REST twin: n expenses recorded
// through POST /api/transactions and n through the MCP server's create_transaction,
// one at a time with one API key, against the service as its own process (the binary
// at serverBin, `finledger serve`). The two kinds alternate, so that each meets the
// same stream depth and the same minute of a shared machine; pgbench at one client on
// the same PostgreSQL follows, to place the figures.
func benchMCP(ctx context.Context, adminURL, benchURL, serverBin string, n int, o benchOptions, out io.Writer) error {
	served, err := serveBench(ctx, serverBin, benchURL, 4, out)
	if err != nil {
		return err
	}
	defer served.close()
	srv, pool, b := served.srv, served.pool, served.run

	tok, category, err := b.workspace("bench-mcp")
	if err != nil {
		return err
	}
	created, err := b.post(tok, "/api/api-keys", map[string]any{"name": "bench",
		"scopes": []string{"transactions:read", "transactions:write", "wallets:read"}}, http.StatusOK)
	if err != nil {
		return err
	}
	key, _ := created["plaintext"].(string)
	if key == "" {
		return fmt.Errorf("an API key: the answer holds no plaintext: %v", created)
	}
	expense := func(i int) map[string]any {
		return map[string]any{"type": "expense", "amount": json.Number(fmt.Sprintf("%d.%02d", 1+i%500, i%100)), "concept": fmt.Sprintf("Expense %d", i),
			"categoryId": category}
	}
	viaREST := func(i int) error {
		_, err := b.post(key, "/api/transactions", expense(i), http.StatusCreated)
		return err
	}
	viaMCP := func(i int) error { return b.callTool(key, i, "create_transaction", expense(i)) }

	fmt.Fprintf(out, "\n== %d expenses through POST /api/transactions and %d through the MCP tool create_transaction, alternating, one at a time, one API key (after %d of each untimed)\n",
		n, n, mcpWarmup)
	var rest, tool []time.Duration
	calls := 0
	for i := range mcpWarmup + n {
		for _, kind := range []struct {
			call  func(int) error
			times *[]time.Duration
		}{{viaREST, &rest}, {viaMCP, &tool}} {
			calls++
			started := time.Now()
			if err := kind.call(calls); err != nil {
				return fmt.Errorf("call %d: %w (server log: %s)", i, err, srv.logPath)
			}
			if i >= mcpWarmup {
				*kind.times = append(*kind.times, time.Since(started))
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	var count int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM transactions WHERE deleted_at IS NULL AND concept LIKE 'Expense %'`).Scan(&count); err != nil {
		return fmt.Errorf("counting the expenses: %w", err)
	}
	if want := 2 * (mcpWarmup + n); count != want {
		return fmt.Errorf("%d expenses recorded, not %d", count, want)
	}
	if err := b.settle(ctx); err != nil {
		return err
	}
	if err := initPgbench(ctx, adminURL, benchOptions{clients: 1}); err != nil {
		return err
	}
	pg, err := runPgbench(ctx, adminURL, benchOptions{clients: 1, duration: o.duration})
	if err != nil {
		return err
	}

	restP50, restP95 := latency.Percentile(rest, 50), latency.Percentile(rest, 95)
	toolP50, toolP95 := latency.Percentile(tool, 50), latency.Percentile(tool, 95)
	fmt.Fprintf(out, "\n| per call | p50 | p95 |\n|---|---|---|\n")
	fmt.Fprintf(out, "| REST POST /api/transactions | %.2f ms | %.2f ms |\n", millis(restP50), millis(restP95))
	fmt.Fprintf(out, "| MCP create_transaction | %.2f ms | %.2f ms |\n", millis(toolP50), millis(toolP95))
	fmt.Fprintf(out, "| MCP over REST | %+.2f ms (%+.0f%%) | %+.2f ms (%+.0f%%) |\n", millis(toolP50-restP50), pct(toolP50, restP50), millis(toolP95-restP95), pct(toolP95, restP95))
	fmt.Fprintf(out, "\npgbench, 1 client, %s on the same PostgreSQL: %.0f tps (%.2f ms a transaction)\n", o.duration, pg, 1000/pg)
	return nil
}

// callTool calls an MCP tool over streamable HTTP with a key, as a client does once
// initialized: the server is stateless, so each call is one POST to /mcp.
func (b *benchRun) callTool(key string, id int, name string, args map[string]any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, b.base+"/mcp", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	raw, err := exchange(b.client, req, http.StatusOK)
	if err != nil {
		return err
	}
	var answer struct {
		Result *struct{ IsError bool }
		Error  *struct{ Message string }
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		return fmt.Errorf("%s: the answer is not JSON-RPC: %w", name, err)
	}
	if answer.Error != nil {
		return fmt.Errorf("%s: %s", name, answer.Error.Message)
	}
	if answer.Result == nil || answer.Result.IsError {
		return errors.New(name + ": " + string(raw))
	}
	return nil
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func pct(a, b time.Duration) float64 { return 100 * float64(a-b) / float64(b) }
