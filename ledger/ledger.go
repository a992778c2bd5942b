// Package ledger owns the write side's engine: the Ledger that loads a workspace's
// state, runs a command's decision (package domain) on it, appends the events, projects
// them and records idempotency in one database transaction; the group commit of a
// workspace's queued commands, the cache of states, snapshots and their codec, the
// events' encoding to storage and the Upcaster that reads old ones, users'
// registration, link codes' storage, the API key count and the transactions a state
// loads when a command needs them.
package ledger

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/internal/metrics"
)

// Projector starts the projection of one command's write into the read models.
type Projector func() Projection

// Projection queues the read-model updates of one command's events on the batches that
// carry their append, so that both commit in one transaction and travel in the same
// round trips. A write in parts (writePart) queues each part's events on the part's
// batch, and then Flush on the last: what the projection gathers from part to part
// (sums that only add up, written once each) it may queue only then.
type Projection interface {
	// Queue queues the updates of events, which follow those queued before. decoded,
	// when not nil, holds the events' payloads as DecodeEvent would return them.
	Queue(b *pgx.Batch, events []eventstore.RecordedEvent, decoded []domain.Event) error
	// Flush queues what Queue gathered and has not queued yet.
	Flush(b *pgx.Batch)
}

// CopyingProjection is a Projection that can take the new rows of a streamed write (a
// statement's import: a hundred thousand transactions and their audit entries) by COPY,
// as a replay of the log does, instead of as array parameters of its batches' inserts.
// pgx encodes a batch's parameters whole before it sends the batch, while PostgreSQL
// waits; a COPY's rows it encodes as it streams them.
type CopyingProjection interface {
	Projection
	// Copying has the rows it gathers from now on left to copy.
	Copying()
	// Sending returns what sends b on a transaction, with the rows left to copy since
	// Sending was last called, each COPYed at its place among b's statements.
	Sending(b *pgx.Batch) func(ctx context.Context, tx pgx.Tx) error
}

// ProjectFunc is a Projection that queues each event's updates as it comes, and gathers
// nothing.
type ProjectFunc func(b *pgx.Batch, events []eventstore.RecordedEvent, decoded []domain.Event) error

// Queue calls f.
func (f ProjectFunc) Queue(b *pgx.Batch, events []eventstore.RecordedEvent, decoded []domain.Event) error {
	return f(b, events, decoded)
}

// Flush queues nothing: f gathers nothing.
func (ProjectFunc) Flush(*pgx.Batch) {}

// Actor types of the metadata.
const (
	ActorUser    = "user"
	ActorAPIKey  = "api_key"
	ActorChannel = "channel" // the chat channel: ActorID is the link id
	ActorSystem  = "system"
)

// Metadata travels with every event: who caused it and through which request.
type Metadata struct {
	ActorType string    `json:"actorType"` // user, api_key, channel or system
	ActorID   string    `json:"actorId"`
	UserID    uuid.UUID `json:"userId,omitzero"`
	UserAgent string    `json:"userAgent,omitempty"`
	RequestID string    `json:"requestId,omitempty"`
	// UndoOf is the API key whose work the command undid (domain.UndoAgentWork).
	UndoOf string `json:"undoOf,omitempty"`
}

// Idempotency identifies a request made with an Idempotency-Key.
type Idempotency struct {
	Credential  string // who made the request: keys of different callers never collide
	Key         string
	RequestHash []byte // method, path and body; the same key with another request is refused
}

// Appended is an event a command stored.
type Appended struct {
	Type    string `json:"type"`
	Version int64  `json:"version"` // in its stream
	// Data is the payload as decided (a *TransactionCreated, say); nil in a replayed
	// result, which keeps only the type and version.
	Data domain.Event `json:"-"`
}

// Result is what a command did.
type Result struct {
	// Events are the events the command appended, in order: the workspace's, then any of
	// its user's stream or of the workspace it opened. None when it changed nothing.
	Events []Appended
	// Version is the workspace stream's version once the command has run.
	Version int64
	// Answer is what the call's Answer read after the write, as JSON; nil without one.
	Answer json.RawMessage
	// Replayed reports a result served from the record of an earlier request with the
	// same Idempotency-Key: nothing was decided or written again.
	Replayed bool
}

// Answer reads what a command's caller answers with, from the read models that the
// command's own projections have just written, in the write's round trip: Queue adds
// its reads to the batch that carries the append and returns what builds the answer
// once the batch has run, reading more if it must: in the write's transaction, or after
// the commit when the write was one batch, so that it always sees the write. Package
// queries makes them. The answer is kept, as JSON, with an Idempotency-Key's record.
type Answer interface {
	Queue(b *pgx.Batch, appended []Appended) Answering
}

// Answering builds an answer once the batch its reads rode in has run.
type Answering func(ctx context.Context, conn Conn) (any, error)

// AnswerFunc is an Answer made of a function.
type AnswerFunc func(b *pgx.Batch, appended []Appended) Answering

// Queue calls f.
func (f AnswerFunc) Queue(b *pgx.Batch, appended []Appended) Answering { return f(b, appended) }

// Conn is where an Answer reads more once the write's batch has run: the write's
// transaction, or the pool after a write that was one batch.
type Conn interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Call is one command against a workspace.
type Call struct {
	WorkspaceID uuid.UUID
	Metadata    Metadata
	Idempotency *Idempotency
	// Decide returns the events of the command, or a domain error. It must not change
	// the state it is given. Nil decides nothing in the workspace.
	Decide func(*domain.Workspace) ([]domain.Event, error)
	// DecideUser, when set, decides events for the stream of user UserID, appended in
	// the same transaction as the workspace's: profile changes, account deletion.
	UserID     uuid.UUID
	DecideUser func(*domain.User) ([]domain.Event, error)
	// OpenWorkspace, when set, creates that workspace's stream in the same transaction.
	// When it is the call's own workspace, it is created unless it exists, and the call
	// decides nothing else in it.
	OpenWorkspace *domain.WorkspaceCreated
	// OpenUser, when set, starts the stream of user UserID with it unless the stream
	// exists; DecideUser is then not called.
	OpenUser *domain.UserRegistered
	// claim, when set, takes what the command may use only once (a one-time code), or
	// counts what a person may have only so many of (live API keys), or fails the
	// command with its error: it locks and marks (or counts) the thing in the command's
	// transaction, so the taking commits with the events or not at all, and a racing
	// claim waits for this one and finds the thing taken. It runs first in every
	// attempt, before any database lock of the Ledger's, so locks are always taken in
	// one order; a replay by Idempotency-Key runs it again and so meets the thing
	// already taken.
	claim func(ctx context.Context, tx pgx.Tx) error
	// streamed, when set, has a write in parts fold each part's events into the cached
	// state once they are queued, and let them go: the command holds one part of its
	// events at a time instead of all of them (a statement's import commits a hundred
	// thousand), and its Answer gets their types and versions, not their payloads.
	streamed bool
	// translate, when set, tells the command's failure in the domain's words where the
	// database refused it (a read model's unique index), and returns other errors as
	// they are. A call with one never runs in a group.
	translate func(error) error
	// Answer, when set, reads the answer kept in the Result.
	Answer Answer
}

// ErrIdempotencyKeyReused is returned when a key comes back with a different request.
var ErrIdempotencyKeyReused = &domain.Error{
	Kind: domain.KindUnprocessable, Code: "IDEMPOTENCY_KEY_REUSED",
	Message: "this Idempotency-Key was already used with a different request",
}

// Ledger runs commands. Commands of one workspace run one at a time: in this process
// through the state cache's per-workspace lock (so waiting requests hold no database
// connection), and across processes through the row lock on the stream's head.
type Ledger struct {
	pool     *pgxpool.Pool
	project  Projector
	now      func() time.Time
	states   *stateCache
	onCommit func()
	metrics  *metrics.Metrics // nil: nothing counted
	// snapshotEvery is the least growth of a stream between two snapshots; 0: none.
	snapshotEvery int64
}

// OnCommit sets a function called after every command that stored events; it must not
// block (it tells a reader of the log that there is something to read). Set it before
// the first command.
func (l *Ledger) OnCommit(f func()) { l.onCommit = f }

// Instrument counts the Ledger's appends, conflicts and replays in m. Set it before the
// first command.
func (l *Ledger) Instrument(m *metrics.Metrics) { l.metrics = m }

// LimitStateBytes bounds the memory the cached workspace states hold, as their
// footprints estimate it, besides their count; 0 leaves only the count. Set it before
// the first command.
func (l *Ledger) LimitStateBytes(n int64) { l.states.maxBytes = n }

// NewLedger returns a Ledger that keeps up to cacheSize workspace states in memory.
func NewLedger(pool *pgxpool.Pool, project Projector, now func() time.Time, cacheSize int) *Ledger {
	return &Ledger{pool: pool, project: project, now: now, states: newStateCache(cacheSize), snapshotEvery: DefaultSnapshotEvery}
}

// maxAttempts bounds the attempts of a command. The first is optimistic: it trusts the
// cached state, which is current unless another instance wrote. Later attempts take the
// stream head's row lock first and bring the state up to the head, so they can only
// fail to commit while the stream is being created or when a concurrent request with
// the same Idempotency-Key commits first (the next attempt replays its answer).
const maxAttempts = 3

// errStaleState reports that a decision made on the cached state appended nothing (a
// domain error, or nothing to change) while the stream had moved on: another instance
// wrote. The decision is not answered but made again on the current state.
var errStaleState = errors.New("ledger: the cached workspace state is behind its stream")

// errIdempotencyRace reports that a concurrent request with the same Idempotency-Key
// committed its record first; the next attempt replays that record's answer.
var errIdempotencyRace = errors.New("ledger: a concurrent request stored the same Idempotency-Key first")

// ErrContended is returned when a command could not commit within maxAttempts because
// other writers kept moving its stream: nothing was written, and the caller may try
// again shortly.
var ErrContended = errors.New("ledger: the workspace's stream kept moving; nothing was written")

// retryable reports whether an attempt may be made again.
func retryable(err error) bool {
	return errors.Is(err, eventstore.ErrVersionConflict) || errors.Is(err, errStaleState) || errors.Is(err, errIdempotencyRace)
}

// Execute runs a command and returns what it did. A command with an Idempotency-Key
// whose record exists is not run again: its recorded result comes back, Replayed.
// Commands that only decide in their workspace wait for it in a queue, and the one that
// takes the workspace's lock runs what has queued as a group (group_commit.go).
func (l *Ledger) Execute(ctx context.Context, c Call) (Result, error) {
	if groupable(c) {
		return l.executeQueued(ctx, c)
	}
	entry, err := l.states.acquire(ctx, c.WorkspaceID)
	if err != nil {
		return Result{}, err
	}
	defer l.states.release(entry)
	res, err := l.executeLocked(ctx, entry, c)
	if err != nil && c.translate != nil {
		err = c.translate(err)
	}
	return res, err
}

// executeLocked runs one command, in as many attempts as it takes; the caller holds the
// entry's lock.
func (l *Ledger) executeLocked(ctx context.Context, entry *cacheEntry, c Call) (Result, error) {
	for attempt := 1; ; attempt++ {
		var decided []domain.Event
		var res Result
		var err error
		fast := attempt == 1 && entry.state != nil && c.DecideUser == nil && c.OpenUser == nil && c.claim == nil
		switch {
		case fast && c.Idempotency == nil:
			decided, res, err = l.pipelined(ctx, entry.state, c)
		case fast:
			decided, res, err = l.keyedPipelined(ctx, entry.state, c)
			if errors.Is(err, errNotPipelined) {
				decided, res, err = l.inTransaction(ctx, entry, c, false)
			}
		default:
			// A call that writes a user's stream locks the workspace's head first in every
			// attempt, before the user's: locks taken in one order cannot deadlock.
			lock := attempt > 1 || c.DecideUser != nil || c.OpenUser != nil
			decided, res, err = l.inTransaction(ctx, entry, c, lock)
		}
		if retryable(err) {
			l.metrics.Conflicted()
			if attempt < maxAttempts {
				continue
			}
			err = fmt.Errorf("%w: %w", ErrContended, err)
		}
		if err != nil {
			return Result{}, err
		}
		if len(decided) > 0 {
			l.applyCommitted(entry, decided, res.Events)
		}
		if res.Replayed {
			l.metrics.Replayed()
		} else {
			l.metrics.Appended(len(res.Events))
		}
		l.afterCommit(ctx, entry, len(res.Events) > 0 && !res.Replayed)
		return res, nil
	}
}

// afterCommit tidies the entry's state once commands have run on it, under its lock:
// it tells the log's reader when events were stored (a user's stream's or a new
// workspace's included), bounds the transactions the state keeps, and takes a snapshot
// when one is due.
func (l *Ledger) afterCommit(ctx context.Context, entry *cacheEntry, stored bool) {
	if stored && l.onCommit != nil {
		l.onCommit()
	}
	if entry.state != nil {
		forgetTransactions(entry.state)
	}
	l.keepSnapshot(ctx, entry)
}

// pipelined runs a command that needs nothing from the database before deciding (its
// state is cached, it has no idempotency record to look up nor anything to claim):
// the append, the projections and the reads of the answer go in one batch, which
// PostgreSQL runs as one implicit transaction, so the whole write is one round trip. A
// version conflict fails the append statement, and with it the batch.
func (l *Ledger) pipelined(ctx context.Context, state *domain.Workspace, c Call) ([]domain.Event, Result, error) {
	decided, plans, err := l.decideOn(ctx, l.pool, state, true, c)
	if err != nil {
		return nil, Result{}, err
	}
	res, err := l.write(ctx, l.pool, plans, c, false, nil)
	return decided, res, err
}

// errNotPipelined sends a keyed command from keyedPipelined to an explicit transaction.
var errNotPipelined = errors.New("ledger: the keyed command needs an explicit transaction")

// keyedPipelined runs a command with an Idempotency-Key on a cached state in two round
// trips on one connection: the first opens a transaction and carries the append, the
// projections and the reads of the answer, as pipelined does; the second records the
// key with the result and commits. A key recorded before fails the record's insert,
// which undoes the whole write; so does an append behind the stream. A decision that
// appends nothing (a domain error, or nothing to change) is not made here: it must be
// checked against the stream's head and the key's record first. Those go to an
// explicit transaction (errNotPipelined), which replays a recorded result.
func (l *Ledger) keyedPipelined(ctx context.Context, state *domain.Workspace, c Call) (_ []domain.Event, _ Result, err error) {
	decided, plans, err := l.decideOn(ctx, l.pool, state, true, c)
	if err != nil || len(decided) == 0 {
		return nil, Result{}, errNotPipelined
	}
	conn, err := l.pool.Acquire(ctx)
	if err != nil {
		return nil, Result{}, fmt.Errorf("ledger: acquire a connection: %w", err)
	}
	// A connection released inside a transaction is closed by the pool, so a rollback
	// that fails loses nothing.
	defer conn.Release()
	defer func() {
		if err != nil {
			_, _ = conn.Exec(context.WithoutCancel(ctx), "rollback")
		}
	}()
	res, err := l.write(ctx, conn, plans, c, true, nil)
	if err != nil {
		return nil, Result{}, err
	}
	insert, args, err := idempotencyInsert(c.WorkspaceID, c.Idempotency, res, l.now())
	if err != nil {
		return nil, Result{}, err
	}
	b := &pgx.Batch{}
	b.Queue(insert, args...)
	b.Queue("commit")
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		var pg *pgconn.PgError
		if errors.As(err, &pg) && pg.Code == uniqueViolation {
			return nil, Result{}, errNotPipelined
		}
		return nil, Result{}, fmt.Errorf("ledger: record idempotency key and commit: %w", err)
	}
	return decided, res, nil
}

// inTransaction runs a command in an explicit transaction: it runs the claim, with
// lock takes the stream head's row lock, then checks the idempotency record and loads
// what the state cache lacks.
func (l *Ledger) inTransaction(ctx context.Context, entry *cacheEntry, c Call, lock bool) (decided []domain.Event, res Result, err error) {
	folding := false // a streamed write has begun folding its parts into the entry's state
	err = pgx.BeginFunc(ctx, l.pool, func(tx pgx.Tx) error {
		if c.claim != nil {
			if err := c.claim(ctx, tx); err != nil {
				return err
			}
		}
		head := int64(-1) // unknown: trust the cache
		if lock {
			var err error
			if head, err = eventstore.Version(ctx, tx, domain.StreamID(c.WorkspaceID), true); err != nil {
				return err
			}
		}
		if c.Idempotency != nil {
			stored, found, err := lookupIdempotency(ctx, tx, c.WorkspaceID, c.Idempotency)
			if err != nil || found {
				res = stored
				return err
			}
		}
		cached := head < 0 && entry.state != nil
		state, err := l.stateAt(ctx, tx, entry, head)
		if err != nil {
			return err
		}
		var plans []appendPlan
		if decided, plans, err = l.decideOn(ctx, tx, state, cached, c); err != nil {
			return answeredMeanwhile(ctx, tx, c, err)
		}
		if c.DecideUser != nil || c.OpenUser != nil {
			user, err := loadUser(ctx, tx, c.UserID)
			if err != nil {
				return err
			}
			userEvents, err := decideUser(user, c)
			if err != nil {
				return err
			}
			plans = append(plans, appendPlan{domain.UserStreamID(c.UserID), user.Version, userEvents})
		}
		var fold *cacheEntry
		if c.streamed {
			fold, folding = entry, true
		}
		if res, err = l.write(ctx, tx, plans, c, false, fold); err != nil {
			return err
		}
		if fold != nil {
			decided = nil // folded already
		}
		if c.Idempotency != nil {
			return storeIdempotency(ctx, tx, c.WorkspaceID, c.Idempotency, res, l.now())
		}
		return nil
	})
	if err != nil {
		if folding {
			// A write that failed may have folded parts of its events into the state.
			entry.state = nil
		}
		return nil, Result{}, err
	}
	return decided, res, nil
}

// decideOn decides the command on state. A state taken from the cache unread may be
// behind the stream when another instance wrote: a decision that appends is checked by
// the append itself (it expects the state's version), but one that appends nothing to
// the workspace (a domain error, or nothing to change) is checked against the stream's
// head before it is answered, and fails with errStaleState when the head has moved.
func (l *Ledger) decideOn(ctx context.Context, db eventstore.DB, state *domain.Workspace, cached bool, c Call) ([]domain.Event, []appendPlan, error) {
	decided, plans, err := l.decide(state, c)
	// A decision that names transactions the state has not met is made again once they
	// are loaded as of the state's version; a bulk operation names all of its own at once.
	// A reconciliation names a wallet whose every transaction it needs.
	for range maxAttempts {
		unmet, wallets := domain.Unmet(err), domain.UnmetWallets(err)
		if unmet == nil && wallets == nil {
			break
		}
		if err := meetTransactions(ctx, db, state, unmet, state.Version); err != nil {
			return nil, nil, err
		}
		for _, wallet := range wallets {
			if err := meetWallet(ctx, db, state, wallet, state.Version); err != nil {
				return nil, nil, err
			}
		}
		decided, plans, err = l.decide(state, c)
	}
	var domainErr *domain.Error
	if cached && (errors.As(err, &domainErr) || err == nil && len(decided) == 0) {
		head, headErr := eventstore.Version(ctx, db, domain.StreamID(c.WorkspaceID), false)
		if headErr != nil {
			return nil, nil, headErr
		}
		if head != state.Version {
			return nil, nil, errStaleState
		}
	}
	return decided, plans, err
}

// decide runs the command's workspace decision and lists the appends it makes.
func (l *Ledger) decide(state *domain.Workspace, c Call) ([]domain.Event, []appendPlan, error) {
	if c.OpenWorkspace != nil && c.OpenWorkspace.WorkspaceID == c.WorkspaceID {
		var decided []domain.Event
		if !state.Exists {
			decided = []domain.Event{c.OpenWorkspace}
		}
		return decided, []appendPlan{{domain.StreamID(c.WorkspaceID), state.Version, decided}}, nil
	}
	if !state.Exists || state.Deleted {
		return nil, nil, domain.NotFound("WORKSPACE_NOT_FOUND", "workspace %s not found", c.WorkspaceID)
	}
	var decided []domain.Event
	if c.Decide != nil {
		var err error
		if decided, err = c.Decide(state); err != nil {
			return nil, nil, err
		}
		// Every command that moves spending may take a budget to its alert threshold:
		// the alert is decided here, for all of them, and appended with their events.
		if decided, err = state.WithBudgetAlerts(decided); err != nil {
			return nil, nil, err
		}
	}
	plans := []appendPlan{{domain.StreamID(c.WorkspaceID), state.Version, decided}}
	if c.OpenWorkspace != nil {
		plans = append(plans, appendPlan{domain.StreamID(c.OpenWorkspace.WorkspaceID), eventstore.NoStream,
			[]domain.Event{c.OpenWorkspace}})
	}
	return decided, plans, nil
}

// decideUser decides the call's events for the stream of its user.
func decideUser(user *domain.User, c Call) ([]domain.Event, error) {
	switch {
	case c.OpenUser != nil:
		if user.Exists {
			return nil, nil
		}
		return []domain.Event{c.OpenUser}, nil
	case !user.Exists || user.Deleted:
		return nil, domain.NotFound("USER_NOT_FOUND", "user %s not found", c.UserID)
	}
	return c.DecideUser(user)
}

// appendPlan is an append the write of a command makes.
type appendPlan struct {
	stream   string
	expected int64
	decided  []domain.Event
}

// writePart is the most events one round trip of a write carries when the write runs in
// a transaction of its own, an import's part counted as its transactions (eventWeight).
// A larger append (a statement's import commits a hundred thousand transactions at
// once) goes in parts, each the append of its events and their projection, in the
// command's transaction: what is encoded and held at once stays bounded whatever the
// command's size, and PostgreSQL applies one part while the next is encoded. A projection reads the read models as an earlier part left them, as a
// replay in batches of the log does.
const writePart = 1000

// write sends the appends of the decided events, their projection and the reads of the
// answer, and builds the result. With begin the first batch opens a transaction that
// stays open after it. A write in a transaction (begin, or db a transaction) goes in
// parts of writePart events; one on the pool goes in one batch, which PostgreSQL runs as
// one implicit transaction. With fold, a write in parts folds each part of the
// workspace's events into fold's state once queued, and forgets them (Call.streamed);
// the caller drops the state if the write then fails.
func (l *Ledger) write(ctx context.Context, db eventstore.DB, plans []appendPlan, c Call, begin bool, fold *cacheEntry) (Result, error) {
	w := &queuedWrite{res: Result{Version: plans[0].expected}}
	s := &partSender{db: db, batch: &pgx.Batch{}, part: math.MaxInt}
	tx, inTx := db.(pgx.Tx)
	if begin || inTx {
		s.part = writePart
	}
	if begin {
		s.batch.Queue("begin")
	}
	projection := l.project()
	if copying, ok := projection.(CopyingProjection); ok && inTx && fold != nil {
		copying.Copying()
		s.copying, s.tx = copying, tx
	}
	// A write that fails leaves no batch running on the connection behind it.
	defer s.drain()
	for i, p := range plans {
		for from, to := 0, 0; from < len(p.decided); from = to {
			var weight int
			to, weight = partEnd(p.decided, from, s.part)
			decided := p.decided[from:to]
			if err := s.room(ctx, weight); err != nil {
				return Result{}, err
			}
			events, err := l.encode(decided, c.Metadata)
			if err != nil {
				return Result{}, err
			}
			appended := eventstore.QueueAppend(s.batch, p.stream, p.expected+int64(from), events, l.now())
			s.queued(appended, weight)
			if err := queueProjection(s.batch, projection, appended.Events(), decided, &w.res, i == 0); err != nil {
				return Result{}, err
			}
			if i == 0 && fold != nil {
				answered := w.res.Events[len(w.res.Events)-len(decided):]
				l.applyCommitted(fold, decided, answered)
				forgetNamed(fold, decided)
				for j := range answered {
					answered[j].Data = nil
				}
				clear(decided)
			}
		}
	}
	projection.Flush(s.batch)
	w.queueAnswer(s.batch, c)
	if err := s.finish(ctx); err != nil {
		return Result{}, err
	}
	return w.answer(ctx, db)
}

// partEnd returns where the part of events that starts at from ends, the part taking
// events while their weight stays within part (and at least one), and its weight.
func partEnd(events []domain.Event, from, part int) (to, weight int) {
	for to = from; to < len(events); to++ {
		w := eventWeight(events[to])
		if to > from && weight+w > part {
			break
		}
		weight += w
	}
	return to, weight
}

// eventWeight is what an event counts for in a write's parts: the transactions of an
// import's part (each is a row of its own in the read models), and one for any other.
func eventWeight(e domain.Event) int {
	if imported, ok := e.(*domain.TransactionsImported); ok {
		return max(len(imported.Transactions), 1)
	}
	return 1
}

// partSender sends the batches of a write in parts: the batch being queued goes once
// the one sent before it has run, so that the next part is queued while PostgreSQL
// applies the one before.
type partSender struct {
	db      eventstore.DB
	part    int // the most events of one batch, by weight
	batch   *pgx.Batch
	appends []*eventstore.PendingAppend // the batch's
	weight  int                         // the weight of the batch's appends' events
	sent    pgx.BatchResults            // the batch sent before, running; nil if none
	sentApp []*eventstore.PendingAppend
	// copying, when set, sends each batch on tx with its new rows COPYed, in a goroutine
	// of its own, which reports its end on applied (nil when none is running).
	copying CopyingProjection
	tx      pgx.Tx
	applied chan error
}

// room sends the batch being queued if it cannot take n more events.
func (s *partSender) room(ctx context.Context, n int) error {
	if s.weight == 0 || s.weight+n <= s.part {
		return nil
	}
	if err := s.wait(); err != nil {
		return err
	}
	s.send(ctx)
	return nil
}

// send sends the batch being queued, which runs until wait, and starts the next.
func (s *partSender) send(ctx context.Context) {
	if s.copying != nil {
		apply, applied := s.copying.Sending(s.batch), make(chan error, 1)
		go func() { applied <- apply(ctx, s.tx) }()
		s.applied = applied
	} else {
		s.sent = s.db.SendBatch(ctx, s.batch)
	}
	s.sentApp = s.appends
	s.batch, s.appends, s.weight = &pgx.Batch{}, nil, 0
}

// queued notes an append of n events queued on the batch.
func (s *partSender) queued(p *eventstore.PendingAppend, n int) {
	s.appends = append(s.appends, p)
	s.weight += n
}

// finish sends the last batch and waits for it.
func (s *partSender) finish(ctx context.Context) error {
	if err := s.wait(); err != nil {
		return err
	}
	if s.batch.Len() > 0 {
		s.send(ctx)
	}
	return s.wait()
}

// drain waits for the batch sent before, if any, to end, whatever its outcome: the
// connection is then free for the transaction's rollback.
func (s *partSender) drain() { _ = s.wait() }

// wait waits for the batch sent before to run. An append's failure explains any failure
// of the statements queued after it, so it comes first.
func (s *partSender) wait() error {
	var sendErr error
	switch {
	case s.sent != nil:
		sendErr = s.sent.Close()
		s.sent = nil
	case s.applied != nil:
		sendErr = <-s.applied
		s.applied = nil
	default:
		return nil
	}
	for _, p := range s.sentApp {
		if err := p.Err(); err != nil {
			return err
		}
	}
	if sendErr != nil {
		return fmt.Errorf("ledger: append and project: %w", sendErr)
	}
	return nil
}

// queuedWrite is the result of a command's write being queued, and the reads of its
// answer.
type queuedWrite struct {
	res       Result
	answering Answering
}

// queueProjection queues the projection of decided events, as recorded, and adds them
// to res; those of the workspace's stream set its version.
func queueProjection(b *pgx.Batch, projection Projection, recorded []eventstore.RecordedEvent, decided []domain.Event, res *Result, workspace bool) error {
	for j, e := range decided {
		res.Events = append(res.Events, Appended{Type: e.EventType(), Version: recorded[j].Version, Data: e})
	}
	if err := projection.Queue(b, recorded, decided); err != nil {
		return err
	}
	if workspace {
		res.Version = recorded[len(recorded)-1].Version
	}
	return nil
}

// queueAnswer queues the reads of the call's answer, after the write's statements.
func (w *queuedWrite) queueAnswer(b *pgx.Batch, c Call) {
	if c.Answer != nil {
		w.answering = c.Answer.Queue(b, w.res.Events)
	}
}

// answer builds the result with the call's answer, once the batch has run, reading more
// from db if the answer must.
func (w *queuedWrite) answer(ctx context.Context, db eventstore.DB) (Result, error) {
	res := w.res
	if w.answering == nil {
		return res, nil
	}
	// The answer is read even if the caller has gone: after a batch that committed by
	// itself the write stands whatever becomes of the request, and a caller's failure
	// must not be reported as the write's.
	readCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), answerTimeout)
	defer cancel()
	answer, err := w.answering(readCtx, db)
	if err != nil {
		return Result{}, err
	}
	if res.Answer, err = json.Marshal(answer); err != nil {
		return Result{}, fmt.Errorf("ledger: encode answer: %w", err)
	}
	return res, nil
}

// answerTimeout bounds the reads of an answer once the write's batch has run.
const answerTimeout = 10 * time.Second

// stateAt returns the entry's state. With head unknown (-1) it trusts the cached state,
// loading the stream only when nothing is cached; with head known it brings the state up
// to head, reading only the events the cached state has not seen. A load starts from
// the workspace's latest snapshot and reads every event after it, so the state it
// returns is as current as a fold of the whole stream.
func (l *Ledger) stateAt(ctx context.Context, tx pgx.Tx, entry *cacheEntry, head int64) (*domain.Workspace, error) {
	loadAll := entry.state == nil
	if loadAll || (head >= 0 && entry.state.Version > head) {
		start, err := l.startingState(ctx, tx, entry.id, head)
		if err != nil {
			return nil, err
		}
		entry.state, entry.snapshotAt = start, start.Version
	}
	if (head < 0 && loadAll) || entry.state.Version < head {
		if err := foldStream(ctx, tx, entry.state, head); err != nil {
			entry.state = nil
			return nil, err
		}
	}
	return entry.state, nil
}

// foldBatch is how many events a state load reads per query.
const foldBatch = 1000

// applyCommitted folds the events of a committed command into the cached state, or
// those of a part of a streamed write once queued (whose caller drops the state if the
// write then fails); stored holds what the command appended, the workspace's events
// first.
func (l *Ledger) applyCommitted(entry *cacheEntry, decided []domain.Event, stored []Appended) {
	if entry.state == nil {
		return
	}
	for i, e := range decided {
		if err := entry.state.Apply(e); err != nil {
			// The events are stored; the next command rebuilds the state from them.
			entry.state = nil
			return
		}
		entry.state.Version = stored[i].Version
	}
}

// forgetNamed has the entry's state forget the transactions a part of a streamed write
// names, once the part is folded: a streamed command names each transaction once (an
// import creates or links each of its rows' once, its undo deletes or unlinks each
// once), so the state keeps those the later parts need, and holds no record of the
// hundred thousand it created. A later event that named one again would fail to fold,
// and drop the state, which the next command reads from the store.
func forgetNamed(entry *cacheEntry, decided []domain.Event) {
	if entry.state == nil {
		return
	}
	for _, stored := range decided {
		for e := range domain.Parts(stored) {
			if id, _, ok := namedTransaction(e); ok {
				entry.state.ForgetTransaction(id)
			}
		}
	}
}

func (l *Ledger) encode(decided []domain.Event, meta Metadata) ([]eventstore.Event, error) {
	metaJSON, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("ledger: encode metadata: %w", err)
	}
	out := make([]eventstore.Event, len(decided))
	for i, e := range decided {
		// Every switch on events has a case for the pointer: a value would fold as nothing.
		if reflect.ValueOf(e).Kind() != reflect.Pointer {
			return nil, fmt.Errorf("ledger: %s decided as a %T, not a pointer to it", e.EventType(), e)
		}
		data, err := EncodePayload(e)
		if err != nil {
			return nil, fmt.Errorf("ledger: encode %s: %w", e.EventType(), err)
		}
		id, err := uuid.NewV7()
		if err != nil {
			return nil, fmt.Errorf("ledger: event id: %w", err)
		}
		out[i] = eventstore.Event{ID: id, Type: e.EventType(), Data: data, Metadata: metaJSON}
	}
	return out, nil
}

// answeredMeanwhile returns the domain error a keyed command decided, unless a request
// with the same key committed after this one looked for its record: the state was read
// after that, so it holds the other request's effects (a deletion finds the transaction
// gone) and the error is not this request's answer. errIdempotencyRace then makes the
// next attempt replay the answer recorded.
func answeredMeanwhile(ctx context.Context, tx pgx.Tx, c Call, decided error) error {
	var domainErr *domain.Error
	if c.Idempotency == nil || !errors.As(decided, &domainErr) {
		return decided
	}
	_, found, err := lookupIdempotency(ctx, tx, c.WorkspaceID, c.Idempotency)
	switch {
	case err != nil:
		return err
	case found:
		return errIdempotencyRace
	}
	return decided
}

// lookupIdempotency returns the result recorded for a keyed request, Replayed.
func lookupIdempotency(ctx context.Context, tx pgx.Tx, workspaceID uuid.UUID, k *Idempotency) (Result, bool, error) {
	var hash, events []byte
	res := Result{Replayed: true}
	err := tx.QueryRow(ctx, `SELECT request_hash, version, events, answer FROM idempotency_keys
		WHERE workspace_id = $1 AND credential = $2 AND key = $3`, workspaceID, k.Credential, k.Key).
		Scan(&hash, &res.Version, &events, &res.Answer)
	if errors.Is(err, pgx.ErrNoRows) {
		return Result{}, false, nil
	}
	if err != nil {
		return Result{}, false, fmt.Errorf("ledger: read idempotency key: %w", err)
	}
	if !bytes.Equal(hash, k.RequestHash) {
		return Result{}, false, ErrIdempotencyKeyReused
	}
	if err := json.Unmarshal(events, &res.Events); err != nil {
		return Result{}, false, fmt.Errorf("ledger: read idempotency key's events: %w", err)
	}
	return res, true, nil
}

// storeIdempotency records the result of a keyed request. A concurrent request with the
// same key that changed nothing took no stream lock, so both can get here: the second
// waits for the first's record to commit and then fails with errIdempotencyRace.
func storeIdempotency(ctx context.Context, tx pgx.Tx, workspaceID uuid.UUID, k *Idempotency, res Result, now time.Time) error {
	insert, args, err := idempotencyInsert(workspaceID, k, res, now)
	if err != nil {
		return err
	}
	tag, err := tx.Exec(ctx, insert+` ON CONFLICT DO NOTHING`, args...)
	if err != nil {
		return fmt.Errorf("ledger: store idempotency key: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return errIdempotencyRace
	}
	return nil
}

// idempotencyInsert is the statement that records a keyed request's result: the
// version, the type and version of each event appended, and the answer.
func idempotencyInsert(workspaceID uuid.UUID, k *Idempotency, res Result, now time.Time) (string, []any, error) {
	events, err := json.Marshal(res.Events)
	if err != nil {
		return "", nil, fmt.Errorf("ledger: encode idempotency key's events: %w", err)
	}
	if res.Events == nil {
		events = []byte("[]")
	}
	return `INSERT INTO idempotency_keys (workspace_id, credential, key, request_hash, version, events, answer, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		[]any{workspaceID, k.Credential, k.Key, k.RequestHash, res.Version, string(events), []byte(res.Answer), now}, nil
}

// uniqueViolation is PostgreSQL's SQLSTATE for a duplicate key.
const uniqueViolation = "23505"

// IdempotencyRetention is how long an Idempotency-Key is remembered: well past the 24
// hours clients may count on.
const IdempotencyRetention = 7 * 24 * time.Hour

// PurgeIdempotencyKeys forgets keys recorded before cutoff and returns how many.
func PurgeIdempotencyKeys(ctx context.Context, db eventstore.DB, cutoff time.Time) (int64, error) {
	tag, err := db.Exec(ctx, `DELETE FROM idempotency_keys WHERE created_at < $1`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("ledger: purge idempotency keys: %w", err)
	}
	return tag.RowsAffected(), nil
}
