package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/finledger/finledger/domain"
)

// Every route declares all that the router, the guard, the write runner and the
// OpenAPI document read of it, and the document's operations are the routes.
func TestRouteDeclarations(t *testing.T) {
	for _, problem := range routeProblems(routes) {
		t.Error(problem)
	}
}

// The check catches a route that lacks a declaration.
func TestRouteDeclarationsCatchAMissingOne(t *testing.T) {
	for name, spoil := range map[string]func(*route){
		"summary":      func(rt *route) { rt.Summary = "" },
		"status":       func(rt *route) { rt.Status = 0 },
		"response":     func(rt *route) { rt.Response = "" },
		"request":      func(rt *route) { rt.Request = "" },
		"idempotency":  func(rt *route) { rt.Replay = 0 },
		"scope":        func(rt *route) { rt.Scope = "" },
		"unknown body": func(rt *route) { rt.Request = "NoSuchBody" },
	} {
		spoilt := slices.Clone(routes)
		i := slices.IndexFunc(spoilt, func(rt route) bool { return rt.Method == "POST" && rt.Pattern == "/api/wallets" })
		spoil(&spoilt[i])
		if len(routeProblems(spoilt)) == 0 {
			t.Errorf("a route without its %s passes", name)
		}
	}
}

// routeProblems lists what the routes lack or contradict.
func routeProblems(table []route) []string {
	var problems []string
	fail := func(rt route, format string, args ...any) {
		problems = append(problems, rt.Method+" "+rt.Pattern+": "+fmt.Sprintf(format, args...))
	}
	bodies := requestSchemas()
	schemas := merge(merge(schemas(), eventSchemas()), limitsSchemas())
	named := map[string]bool{}
	bodyUsed := map[string]bool{}
	for _, rt := range table {
		key := rt.Method + " " + rt.Pattern
		if named[key] {
			fail(rt, "declared twice")
		}
		named[key] = true
		if rt.Summary == "" {
			fail(rt, "no summary")
		}
		if rt.Status < 200 || rt.Status > 299 {
			fail(rt, "no success status")
		}
		if rt.Handler == nil {
			fail(rt, "no handler")
		}
		switch {
		case rt.Scope == "":
			fail(rt, "no scope")
		case rt.Scope == sessionOnly, rt.Scope == realtimeTokenOnly, rt.Scope == toolScopes:
		case rt.Scope == channelOnly:
			if rt.Channel == nil {
				fail(rt, "only the chat channel calls it, and it is not on the channel's allow-list")
			}
		case !domain.KnownScope(rt.Scope) || rt.Scope == domain.ScopeAll:
			fail(rt, "scope %q is not one an API key may hold", rt.Scope)
		}
		if rt.Channel != nil && rt.Channel.Scope != "" && !domain.KnownScope(rt.Channel.Scope) {
			fail(rt, "channel scope %q is not a scope", rt.Channel.Scope)
		}
		switch {
		case rt.Response == "" && rt.Media == "":
			fail(rt, "no response schema")
		case rt.Response != "" && schemas[rt.Response] == nil:
			fail(rt, "response schema %s does not exist", rt.Response)
		}
		if rt.Request != "" {
			bodyUsed[rt.Request] = true
			if bodies[rt.Request] == nil {
				fail(rt, "request body %s does not exist", rt.Request)
			}
		}
		if rt.Method == http.MethodGet {
			if rt.Replay != 0 || rt.Request != "" {
				fail(rt, "a read declares an idempotency rule or a body")
			}
			continue
		}
		if rt.Request == "" && !bodiless[key] {
			fail(rt, "a write without a request body, and not among those that take none")
		}
		switch rt.Replay {
		case replayStored, replayKeyRequired:
			if rt.NotReplayedBecause != "" {
				fail(rt, "replays its answers and says why it does not")
			}
		case replayNever:
			if rt.NotReplayedBecause == "" {
				fail(rt, "never replays and does not say why")
			}
		default:
			fail(rt, "a write without an idempotency rule")
		}
	}
	for name := range bodies {
		if !bodyUsed[name] {
			problems = append(problems, "request body "+name+" belongs to no route")
		}
	}
	return problems
}

// bodiless are the writes that take no body: any field sent is unknown (400).
var bodiless = map[string]bool{
	"DELETE /api/me": true, "DELETE /api/api-keys/{id}": true, "DELETE /api/workspace": true,
	"DELETE /api/workspaces/{workspaceId}/members/{userId}": true, "DELETE /api/workspaces/{workspaceId}/invitations/{invitationId}": true,
	"DELETE /api/budgets/{id}": true, "DELETE /api/goals/{id}": true, "DELETE /api/debts/{id}": true, "DELETE /api/recurrent/{id}": true,
	"POST /api/exchange-rates/ecb": true, "DELETE /api/webhooks/outbound/{id}": true, "POST /api/webhooks/outbound/{id}/rotate-secret": true,
	"POST /api/webhooks/outbound/{id}/test": true, "POST /api/webhooks/outbound/{id}/deliveries/{deliveryId}/redeliver": true,
	"POST /api/me/whatsapp": true, "DELETE /api/me/whatsapp": true, "POST /api/whatsapp/last-transaction/undo": true,
	"POST /api/realtime/token": true, "DELETE /api/wallets/{id}": true, "DELETE /api/categories/{id}": true,
	"DELETE /api/tags/{id}": true, "DELETE /api/transactions/{id}": true, "DELETE /api/import-profiles/{id}": true,
	"DELETE /api/rules/{id}": true, "DELETE /api/imports/{id}": true,
	"POST /api/imports/{id}/commit": true, "POST /api/imports/{id}/undo": true,
	"POST /api/proposals/{id}/approve": true, "POST /api/proposals/{id}/reject": true,
	// A JSON-RPC message of the MCP server, which the SDK reads.
	"POST " + mcpPath: true,
	// The file itself is the body (StatementFile).
	"POST /api/imports": true, "POST /api/transactions/{id}/attachments": true, "DELETE /api/transactions/{id}/attachments/{attachmentId}": true,
}

// apiRoutes are the routes of the REST API, which the OpenAPI document describes: all
// but the MCP server's.
func apiRoutes() []route {
	return slices.DeleteFunc(slices.Clone(routes), func(rt route) bool { return rt.Scope == toolScopes })
}

// The OpenAPI document's operations are the routes, each as declared.
func TestOpenAPIOperationsAreTheRoutes(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Summary     string            `json:"summary"`
			Scope       string            `json:"x-scope"`
			Channel     *string           `json:"x-channel-scope"`
			RequestBody map[string]string `json:"requestBody"`
			Parameters  []struct {
				Name     string `json:"name"`
				Required bool   `json:"required"`
			} `json:"parameters"`
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	documented := 0
	for _, item := range doc.Paths {
		documented += len(item)
	}
	if documented != len(apiRoutes()) {
		t.Errorf("the document has %d operations, the route table %d besides the MCP server", documented, len(apiRoutes()))
	}
	for _, rt := range apiRoutes() {
		op, ok := doc.Paths[rt.Pattern][strings.ToLower(rt.Method)]
		if !ok {
			t.Errorf("%s %s is not in the document", rt.Method, rt.Pattern)
			continue
		}
		if op.Summary != rt.Summary || op.Scope != rt.Scope {
			t.Errorf("%s %s: documented as %q with scope %q", rt.Method, rt.Pattern, op.Summary, op.Scope)
		}
		if (op.Channel != nil) != (rt.Channel != nil) || (op.Channel != nil && *op.Channel != rt.Channel.Scope) {
			t.Errorf("%s %s: the channel's scope is documented as %v", rt.Method, rt.Pattern, op.Channel)
		}
		if _, ok := op.Responses[strconv.Itoa(rt.Status)]; !ok {
			t.Errorf("%s %s: status %d is not documented", rt.Method, rt.Pattern, rt.Status)
		}
		if want := "#/components/requestBodies/" + rt.Request; rt.Request != "" && op.RequestBody["$ref"] != want {
			t.Errorf("%s %s: request body %v, want %s", rt.Method, rt.Pattern, op.RequestBody, want)
		}
		keyRequired := false
		for _, p := range op.Parameters {
			keyRequired = keyRequired || (p.Name == "Idempotency-Key" && p.Required)
		}
		if keyRequired != (rt.Replay == replayKeyRequired) {
			t.Errorf("%s %s: Idempotency-Key documented as required: %v", rt.Method, rt.Pattern, keyRequired)
		}
	}
}

// The scopes the service has are those the routes need and the reserved ones, and the
// document names the reserved ones.
func TestReservedScopesAreDocumented(t *testing.T) {
	used, reserved := routeScopes(), reservedScopes()
	if len(used)+len(reserved)+1 != len(domain.Scopes) {
		t.Errorf("%d scopes used, %d reserved, of %d", len(used), len(reserved), len(domain.Scopes))
	}
	for _, s := range []string{scopeTransactionsRead, scopeTeamManage, scopeWebhooksWrite} {
		if !slices.Contains(used, s) {
			t.Errorf("%s is not among the scopes used", s)
		}
	}
	description := scopesDescription()
	for _, s := range reserved {
		if !strings.Contains(description, s) || !strings.Contains(string(OpenAPIDocument()), s) {
			t.Errorf("reserved scope %s is not documented", s)
		}
	}
}
