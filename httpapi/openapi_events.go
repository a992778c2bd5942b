package httpapi

import (
	"slices"

	"github.com/finledger/finledger/commands"
)

// eventsSchema is the list of event names a webhook subscribes to.
func eventsSchema() obj {
	names := slices.Concat([]string{commands.HookAll}, commands.HookEvents)
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
