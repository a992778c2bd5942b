package httpapi

import (
	"slices"

	"github.com/finledger/finledger/commands"
)

func init() {
	for key, doc := range map[string]operationDoc{
		"GET /api/webhooks/outbound":                                         {Response: "WebhookList"},
		"POST /api/webhooks/outbound":                                        {Request: "WebhookCreate", Response: "WebhookCreated"},
		"GET /api/webhooks/outbound/{id}":                                    {Response: "WebhookResponse"},
		"PATCH /api/webhooks/outbound/{id}":                                  {Request: "WebhookUpdate", Response: "WebhookResponse"},
		"DELETE /api/webhooks/outbound/{id}":                                 {Response: "OK"},
		"POST /api/webhooks/outbound/{id}/rotate-secret":                     {Response: "WebhookCreated"},
		"POST /api/webhooks/outbound/{id}/test":                              {Response: "DeliveryResponse"},
		"GET /api/webhooks/outbound/{id}/deliveries":                         {Response: "DeliveryList", Query: []string{"page:integer", "pageSize:integer", "status:string"}},
		"POST /api/webhooks/outbound/{id}/deliveries/{deliveryId}/redeliver": {Response: "DeliveryResponse"},
		"GET /api/push/vapid-public-key":                                     {Response: "PushPublicKey"},
		"POST " + incomingPath:                                               {Request: "IncomingTransaction", Response: "TransactionResponse", Query: []string{"key:string"}},
	} {
		operationDocs[key] = doc
	}
}

// eventSchemas are the schemas of webhooks and the realtime stream.
func eventSchemas() obj {
	names := slices.Concat([]string{commands.HookAll}, commands.HookEvents)
	events := obj{"type": "array", "minItems": 1, "items": str(obj{"enum": names}),
		"description": "event names; \"*\" is every event"}
	timestamp := str(obj{"format": "date-time"})
	return obj{
		"Webhook": object(obj{"id": uuidRef(), "name": str(nil), "url": str(obj{"format": "uri"}), "events": events,
			"active": boolean(), "createdBy": uuidRef(), "createdAt": timestamp, "updatedAt": timestamp}),
		"WebhookCreate": object(obj{"name": str(obj{"minLength": 1, "maxLength": 100}),
			"url": str(obj{"format": "uri", "maxLength": maxWebhookURL}), "events": events}, "name", "url"),
		"WebhookUpdate": object(obj{"name": str(obj{"minLength": 1, "maxLength": 100}),
			"url": str(obj{"format": "uri", "maxLength": maxWebhookURL}), "events": events, "active": boolean()}),
		"WebhookCreated": object(obj{"webhook": ref("Webhook"),
			"secret": str(obj{"description": "the signing secret, shown this once: whsec_ + 64 hexadecimal characters"})}, "webhook", "secret"),
		"WebhookResponse": wrap("webhook", "Webhook"),
		"WebhookList":     list("webhooks", "Webhook"),
		"Delivery": object(obj{"id": uuidRef(), "webhookId": uuidRef(), "event": str(nil), "eventId": nuuid(),
			"status":   str(obj{"enum": deliveryStatuses}),
			"attempts": obj{"type": "integer"}, "nextAttemptAt": nstr(obj{"format": "date-time"}), "createdAt": timestamp,
			"completedAt": nstr(obj{"format": "date-time"}),
			"payload":     obj{"type": "object", "description": "the exact body every attempt sends"},
			"history": obj{"type": "array", "items": object(obj{"attempt": obj{"type": "integer"}, "startedAt": timestamp,
				"durationMs": obj{"type": "integer"}, "statusCode": obj{"type": []string{"integer", "null"}}, "error": nstr(nil),
				"responseBody": str(obj{"description": "the first 1 KiB of the answer"}), "succeeded": boolean()})}}),
		"DeliveryResponse": wrap("delivery", "Delivery"),
		"DeliveryList": object(obj{
			"deliveries": obj{"type": "array", "items": ref("Delivery")},
			"pagination": paginationSchema(),
		}, "deliveries", "pagination"),
		"IncomingTransaction": object(obj{
			"amount":      obj{"type": []string{"number", "string"}, "description": "a positive amount, as a number or a string such as \"12.50\""},
			"concept":     str(obj{"minLength": 1, "maxLength": 255}),
			"type":        str(obj{"enum": []string{commands.TxIncome, commands.TxExpense, commands.TxTransfer}, "default": commands.TxExpense}),
			"description": str(obj{"maxLength": 2000}), "date": str(obj{"format": "date"}),
			"walletId": uuidRef(), "walletName": str(nil), "categoryId": uuidRef(), "categoryName": str(nil),
			"toWalletId": obj{"type": "string", "format": "uuid", "description": "the destination of a transfer"},
		}, "amount", "concept"),
		"PushPublicKey": object(obj{"publicKey": str(obj{"description": "base64url of the uncompressed P-256 public key"})}, "publicKey"),
		"RealtimeToken": object(obj{"token": str(nil), "expiresAt": timestamp,
			"url": str(obj{"description": "where to open the stream with this token"})}, "token", "expiresAt", "url"),
	}
}

// realtimeStreamDoc describes the realtime stream, which the token authenticates.
func realtimeStreamDoc() obj {
	return obj{"get": obj{
		"summary": "Server-Sent Events of the workspace's events; each event's id is its version in the workspace's stream",
		"description": "Besides the workspace's events: `reset` ({lastEventId}) when a reconnecting client is too far behind, and " +
			"`revoked` ({reason}: member_removed, role_changed, account_deleted or workspace_deleted) when the user loses " +
			"access to the workspace, after which the stream ends; a client should close its EventSource then.",
		"operationId": "realtimeEvents",
		"x-scope":     "realtime token",
		"parameters": []obj{
			{"name": "token", "in": "query", "required": true, "schema": str(nil), "description": "from POST /api/realtime/token"},
			{"name": "Last-Event-ID", "in": "header", "schema": obj{"type": "integer"}, "description": "resume after this event"},
			{"name": "lastEventId", "in": "query", "schema": obj{"type": "integer"}, "description": "the same, for clients that cannot set headers"},
		},
		"responses": obj{
			"200": obj{"description": "the stream", "content": obj{"text/event-stream": obj{"schema": str(nil)}}},
			"401": obj{"description": "token missing, invalid or expired", "content": obj{"application/json": obj{"schema": ref("Error")}}},
			"403": obj{"description": "the token's user may no longer read the workspace; details.reason says why, as the revoked event does",
				"content": obj{"application/json": obj{"schema": ref("Error")}}},
			"429": obj{"description": "the token already has 5 streams open (TOO_MANY_STREAMS), with Retry-After",
				"content": obj{"application/json": obj{"schema": ref("Error")}}},
		},
	}}
}
