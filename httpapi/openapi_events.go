package httpapi

import (
	"fmt"
	"slices"
	"strings"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/webhooks"
)

// eventsSchema is the list of event names a webhook subscribes to.
func eventsSchema() obj {
	names := slices.Concat([]string{domain.HookAll}, domain.HookEvents)
	return obj{"type": "array", "minItems": 1, "items": str(obj{"enum": names}),
		"description": "event names; \"*\" is every event"}
}

// eventSchemas are the schemas of webhooks and the realtime stream.
func eventSchemas() obj {
	timestamp := str(obj{"format": "date-time"})
	return obj{
		"Webhook": record(obj{"id": uuidRef(), "name": str(nil), "events": eventsSchema(),
			"url":    str(obj{"format": "uri", "description": "whole for callers who may change webhooks; for others masked: the scheme and host, *** for the rest"}),
			"active": boolean(), "createdBy": uuidRef(), "createdAt": timestamp, "updatedAt": timestamp}),
		"WebhookCreated": object(obj{"webhook": ref("Webhook"),
			"secret": str(obj{"description": "the signing secret, shown this once: whsec_ + 64 hexadecimal characters; " +
				"absent from an answer replayed for an Idempotency-Key"})}, "webhook"),
		"WebhookResponse": wrap("webhook", "Webhook"),
		"WebhookList":     list("webhooks", "Webhook"),
		"Delivery": record(obj{"id": uuidRef(), "webhookId": uuidRef(), "event": str(nil), "eventId": nuuid(),
			"status":   str(obj{"enum": deliveryStatuses}),
			"attempts": obj{"type": "integer"}, "nextAttemptAt": nstr(obj{"format": "date-time"}), "createdAt": timestamp,
			"completedAt": nstr(obj{"format": "date-time"}),
			"payload":     obj{"type": "object", "additionalProperties": true, "description": "the exact body every attempt sends"},
			"history": obj{"type": "array", "items": record(obj{"attempt": obj{"type": "integer"}, "startedAt": timestamp,
				"durationMs": obj{"type": "integer"}, "statusCode": obj{"type": []string{"integer", "null"}}, "error": nstr(nil),
				"responseBody": str(obj{"description": "the first 1 KiB of the answer"}), "succeeded": boolean()})}}),
		"DeliveryResponse": wrap("delivery", "Delivery"),
		"DeliveryList": object(obj{
			"deliveries": obj{"type": "array", "items": ref("Delivery")},
			"pagination": paginationSchema(),
		}, "deliveries", "pagination"),
		"PushPublicKey": record(obj{"publicKey": str(obj{"description": "base64url of the uncompressed P-256 public key"})}),
		"RealtimeToken": record(obj{"token": str(nil), "expiresAt": timestamp,
			"url": str(obj{"description": "where to open the stream with this token"})}),
	}
}

// webhooksDoc is the document's webhooks: each public event as the POST a subscribed
// URL receives, its body's schema made by package webhooks from the Go types it sends.
func webhooksDoc() obj {
	header := func(name, doc string) obj {
		return obj{"name": name, "in": "header", "required": true, "schema": str(nil), "description": doc}
	}
	params := []obj{
		header(webhooks.HeaderEvent, "the event's name, as the body's type"),
		header(webhooks.HeaderDelivery, "the delivery's id: the same on every attempt and redelivery, for receivers to drop repeats"),
		header(webhooks.HeaderSignature, "t=<Unix time of the attempt>,v1=<lowercase hex HMAC-SHA256, keyed with the webhook's "+
			"secret, of \"<t>.<body>\">"),
	}
	out := obj{}
	for _, e := range webhooks.EventDocs() {
		operationID := ""
		for _, word := range strings.FieldsFunc(e.Name, func(r rune) bool { return r == '.' || r == '_' }) {
			operationID += strings.ToUpper(word[:1]) + word[1:]
		}
		out[e.Name] = obj{"post": obj{
			"summary": e.Summary,
			"description": fmt.Sprintf("Sent to the webhooks subscribed to %s or *; the realtime stream carries the same type, dataVersion and data. "+
				"Its data is version %d of the event's data: the body's dataVersion says which version data is, and "+
				"a change subscribers' code cannot take (a field removed, renamed or retyped) comes as a new version; "+
				"new fields may appear within a version.", e.Name, e.Version),
			"operationId": "on" + operationID,
			"tags":        []string{"webhooks"},
			"parameters":  params,
			"requestBody": obj{"required": true, "content": obj{"application/json": obj{"schema": e.Body}}},
			"responses": obj{"200": obj{"description": "received: any 2xx answer acknowledges the delivery; any other " +
				"answer, or none before the attempt times out, is retried on the delivery's schedule"}},
		}}
	}
	return out
}

// realtimeStreamDoc describes the realtime stream, which the token authenticates.
func realtimeStreamDoc() obj {
	requestID := obj{"$ref": "#/components/headers/X-Request-Id"}
	return obj{"get": obj{
		"summary": "Server-Sent Events of the workspace's events; each event's id is its version in the workspace's stream",
		"description": "Besides the workspace's events: `reset` ({lastEventId}) when a reconnecting client is too far behind, and " +
			"`revoked` ({reason}: member_removed, role_changed, account_deleted or workspace_deleted) when the user loses " +
			"access to the workspace, after which the stream ends; a client should close its EventSource then. " +
			"401: the token is missing, invalid or expired; 403: the token's user may no longer read the workspace " +
			"(details.reason, as in the revoked event); " + fmt.Sprintf("429 TOO_MANY_STREAMS: the token already has %d streams open, "+
			"its person %d or the workspace %d (details.limit says which); a client that stops reading for %s is cut off.",
			realtimeStreamsPerToken, defaultStreamsPerUser, defaultStreamsPerWorkspace, defaultWriteDeadline),
		"operationId": "realtimeEvents",
		"tags":        []string{"realtime"},
		"x-scope":     "realtime token",
		"security":    []obj{{"realtimeToken": []string{}}},
		"parameters": []obj{
			{"name": "Last-Event-ID", "in": "header", "schema": obj{"type": "integer", "minimum": 0}, "description": "resume after this event"},
			{"name": "lastEventId", "in": "query", "schema": obj{"type": "integer", "minimum": 0}, "description": "the same, for clients that cannot set headers"},
			requestIDParam,
		},
		"responses": obj{
			"200": obj{"description": "the stream", "headers": obj{"X-Request-Id": requestID,
				"Cache-Control":     obj{"description": "no-cache", "schema": str(nil)},
				"X-Accel-Buffering": obj{"description": "no: proxies must not buffer the stream", "schema": str(nil)}},
				"content": obj{"text/event-stream": obj{"schema": str(nil)}}},
			"400": errorResponse(400),
			"401": errorResponse(401),
			"403": errorResponse(403),
			"405": errorResponse(405),
			"429": errorResponse(429),
			"500": errorResponse(500),
			"503": errorResponse(503),
		},
	}}
}
