// Package eventcontract holds, in its test, the one check that every stored event type
// (domain.EventTypes) reaches every consumer of the log: the fold of its stream's state
// ((*domain.Workspace).Apply, or (*domain.User).Apply for user. and whatsapp. types),
// the read models and the audit log (projections.Project), and what subscribers are told
// (webhooks.Classify, which PublicEvents follows). Each consumer's switch answers a type
// it names in no case with domain.ErrUnknownEvent, and a deliberate no-op with an empty
// case, so a type left out fails the test with its name and the consumer that missed it.
//
// The change feed (queries/changes.go, GET /api/changes) has no switch of its own: it
// reads the record histories the projectors keep (projections/history.go, queueVersion)
// and the transaction events by their type names, so a type the projectors take is a
// type the feed can carry. The package has no code besides this comment.
package eventcontract
