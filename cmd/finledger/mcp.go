package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// mcpFlags declares the mcp command's flags: it relays a local MCP client on standard
// input and output to the service's MCP server, with the API key FINLEDGER_API_KEY.
func mcpFlags(fs *flag.FlagSet) runner {
	origin := fs.String("url", "", "the service's origin (default: FINLEDGER_PUBLIC_ORIGIN, else http://FINLEDGER_HTTP_ADDR)")
	return func(ctx context.Context, cfg config, out io.Writer) error {
		if cfg.APIKey == "" {
			return usageError{errors.New("FINLEDGER_API_KEY is not set: the MCP server takes an API key")}
		}
		base := cmp.Or(*origin, cfg.PublicOrigin, "http://"+cfg.HTTPAddr)
		relay := mcpRelay{endpoint: strings.TrimSuffix(base, "/") + "/mcp", key: cfg.APIKey, client: &http.Client{Timeout: time.Minute}}
		return relay.run(ctx, os.Stdin, out)
	}
}

// mcpRelay carries an MCP client's messages, newline-delimited JSON-RPC as the stdio
// transport writes them, to the service's MCP server over streamable HTTP, and its
// answers back, one a line. The server does the rest: the key is checked on every
// message, and the tools are those of its scopes.
type mcpRelay struct {
	endpoint, key string
	client        *http.Client
	// version is the protocol version the initialization agreed on, which every later
	// request names.
	version string
}

// maxMCPMessage bounds a message the relay reads from its client.
const maxMCPMessage = 16 << 20

// run relays the messages of in until it ends.
func (m *mcpRelay) run(ctx context.Context, in io.Reader, out io.Writer) error {
	lines := bufio.NewScanner(in)
	lines.Buffer(make([]byte, 0, 64<<10), maxMCPMessage)
	for lines.Scan() {
		message := bytes.TrimSpace(lines.Bytes())
		if len(message) == 0 {
			continue
		}
		answer, err := m.send(ctx, message)
		if err != nil {
			return err
		}
		if len(answer) == 0 {
			continue
		}
		if _, err := out.Write(append(answer, '\n')); err != nil {
			return fmt.Errorf("mcp: write an answer: %w", err)
		}
	}
	if err := lines.Err(); err != nil {
		return fmt.Errorf("mcp: read a message: %w", err)
	}
	return nil
}

// send posts one message and returns the server's answer as one line: none for a
// notification, and for a call the server refused over HTTP (a key revoked, the
// service unreachable) a JSON-RPC error with the call's id, so that the client hears
// of it and the relay goes on.
func (m *mcpRelay) send(ctx context.Context, message []byte) ([]byte, error) {
	var call struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.Unmarshal(message, &call); err != nil {
		return m.refusal(json.RawMessage("null"), -32700, "the message is not JSON: "+err.Error())
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.endpoint, bytes.NewReader(message))
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+m.key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if m.version != "" {
		req.Header.Set("Mcp-Protocol-Version", m.version)
	}
	resp, err := m.client.Do(req)
	if err != nil {
		return m.refusal(call.ID, -32000, "the service cannot be reached: "+err.Error())
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMCPMessage))
	if err != nil {
		return m.refusal(call.ID, -32000, "the service's answer broke off: "+err.Error())
	}
	if resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent {
		return nil, nil
	}
	if resp.StatusCode != http.StatusOK {
		var envelope struct{ Error struct{ Message string } }
		reason := strings.TrimSpace(string(body))
		if json.Unmarshal(body, &envelope) == nil && envelope.Error.Message != "" {
			reason = envelope.Error.Message
		}
		return m.refusal(call.ID, -32000, fmt.Sprintf("the service answered %d: %s", resp.StatusCode, reason))
	}
	var line bytes.Buffer
	if err := json.Compact(&line, body); err != nil {
		return m.refusal(call.ID, -32000, "the service's answer is not JSON")
	}
	if call.Method == "initialize" {
		var answer struct {
			Result struct{ ProtocolVersion string }
		}
		if json.Unmarshal(body, &answer) == nil {
			m.version = answer.Result.ProtocolVersion
		}
	}
	return line.Bytes(), nil
}

// refusal is the JSON-RPC error answering a call the relay could not get answered; none
// for a notification, which has no id to answer.
func (m *mcpRelay) refusal(id json.RawMessage, code int, message string) ([]byte, error) {
	if len(id) == 0 {
		fmt.Fprintln(os.Stderr, "finledger mcp:", message)
		return nil, nil
	}
	answer, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	return answer, nil
}
