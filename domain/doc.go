// Package domain owns the event contract and the pure rules of the write side: every
// event type with its payload and the one registry that decodes them, the workspace
// and user states folded from events (money, budgets' spending and alerts, effects on
// goals and debts), and every command with its defaults and its Decide, which checks
// the command against a state and returns its events or a domain error. Besides, the
// rules those decisions share: name resolution, periods, currencies, languages, text,
// roles and scopes, nullable fields and errors.
//
// It touches no database and imports no other package of this project: the Ledger
// (package ledger) loads states, runs decisions and stores their events.
package domain
