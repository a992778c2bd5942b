package ledger

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
)

// Group commit. Commands of one workspace run one after another, and each used to
// commit by itself: a busy workspace waited on one commit (a round trip and a flush to
// disk) per command. Commands that only decide in their workspace (groupable) now wait
// in the workspace's queue instead; the one that takes the workspace's lock runs
// everything queued as a group: it decides each command on the state the ones before it
// left, as if they had run one by one, and writes them all in one transaction. Each
// command keeps its own events, answer, idempotency record and error.
//
// A command that appends nothing (a domain error, or nothing to change) is answered
// only once the group's first append has found the stream where the cached state said
// it was: that proves the state it was decided on. A group whose write fails before it
// commits (another instance wrote, or a concurrent request recorded the same
// Idempotency-Key) is forgotten, state included, and its commands run alone, as they
// would have without the group: no command fails because of another.

// groupLimit bounds the commands of one group.
const groupLimit = 64

// groupTimeout bounds a group's write. The group writes for several callers, so one
// caller going away must not stop it.
const groupTimeout = 30 * time.Second

// queuedCall is a command waiting in its workspace's queue.
type queuedCall struct {
	ctx      context.Context
	call     Call
	done     chan outcome // buffered: whoever runs the command never waits for its caller
	finished bool         // set and read by whoever runs it
}

type outcome struct {
	res Result
	err error
}

func (q *queuedCall) finish(res Result, err error) {
	q.finished = true
	q.done <- outcome{res, err}
}

// groupable reports whether a command can run in a group: it decides in its own
// workspace only, with nothing to claim and no other stream to write.
func groupable(c Call) bool {
	return c.Decide != nil && c.DecideUser == nil && c.OpenUser == nil && c.OpenWorkspace == nil && c.claim == nil && c.translate == nil
}

// executeQueued queues a groupable command in its workspace and waits until it has run:
// in a group led by another caller, or in the one this caller leads once it takes the
// workspace's lock.
func (l *Ledger) executeQueued(ctx context.Context, c Call) (Result, error) {
	entry := l.states.enter(c.WorkspaceID)
	defer l.states.drop(entry)
	q := &queuedCall{ctx: ctx, call: c, done: make(chan outcome, 1)}
	l.states.enqueue(entry, q)
	select {
	case out := <-q.done:
		return out.res, out.err
	case entry.lock <- struct{}{}:
		// Whoever took this command from the queue had the lock until it had run it, so
		// its outcome is known once this caller has run what is queued now.
		func() {
			defer l.states.unlock(entry)
			l.runQueue(ctx, entry)
		}()
	case <-ctx.Done():
		if l.states.withdraw(entry, q) {
			return Result{}, ctx.Err()
		}
		// A group has taken it: its outcome comes within the group's time bound.
	}
	out := <-q.done
	return out.res, out.err
}

// runQueue runs the commands queued in the entry: as a group when there are several and
// the state is cached, and otherwise, or for those the group leaves, one by one. The
// caller holds the entry's lock.
func (l *Ledger) runQueue(ctx context.Context, entry *cacheEntry) {
	queued := l.states.takeQueue(entry, groupLimit)
	// A command that panics (a defect) must not leave the others waiting: they fail, the
	// state that may hold part of the group is forgotten, and the panic goes on up.
	taken := queued
	defer func() {
		if r := recover(); r != nil {
			entry.state = nil
			for _, q := range taken {
				if !q.finished {
					q.finish(Result{}, fmt.Errorf("ledger: a command run in the same group failed: %v", r))
				}
			}
			panic(r)
		}
	}()
	if len(queued) > 1 && entry.state != nil {
		groupCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), groupTimeout)
		queued = l.executeGroup(groupCtx, entry, queued)
		cancel()
	}
	for _, q := range queued {
		q.finish(l.executeLocked(q.ctx, entry, q.call))
	}
}

// groupMember is a command of a group: its decision, then its queued write (its
// projections and the reads of its answer), or the domain error it was refused with.
type groupMember struct {
	q       *queuedCall
	decided []domain.Event
	version int64 // the workspace's version before its events
	write   *queuedWrite
	refusal error
	res     Result
}

// executeGroup runs queued commands as one group on the entry's cached state, answers
// those it settles and returns the rest, in order, to be run alone: a keyed command that
// appends nothing (its record must be looked up first), a second command with the same
// key, one whose decision failed for a reason other than the domain's, and all of them
// when the group's write fails before it commits.
func (l *Ledger) executeGroup(ctx context.Context, entry *cacheEntry, queued []*queuedCall) (alone []*queuedCall) {
	state := entry.state
	start := state.Version
	// abandon forgets the group before it commits: its state has folded events that were
	// not stored.
	var members []groupMember
	abandon := func() []*queuedCall {
		entry.state = nil
		for _, m := range members {
			alone = append(alone, m.q)
		}
		return alone
	}
	keys := map[[2]string]bool{}
	var events []eventstore.Event
	keyed := false
	for _, q := range queued {
		c := q.call
		if err := q.ctx.Err(); err != nil {
			q.finish(Result{}, err)
			continue
		}
		if c.Idempotency != nil {
			key := [2]string{c.Idempotency.Credential, c.Idempotency.Key}
			if keys[key] {
				alone = append(alone, q)
				continue
			}
			keys[key] = true
		}
		decided, _, err := l.decideOn(ctx, l.pool, state, false, c)
		var domainErr *domain.Error
		switch {
		case c.Idempotency != nil && (err != nil || len(decided) == 0), err != nil && !errors.As(err, &domainErr):
			alone = append(alone, q)
			continue
		case err != nil:
			members = append(members, groupMember{q: q, refusal: err})
			continue
		}
		encoded, err := l.encode(decided, c.Metadata)
		if err != nil {
			alone = append(alone, q)
			continue
		}
		members = append(members, groupMember{q: q, decided: decided, version: state.Version})
		keyed = keyed || c.Idempotency != nil
		events = append(events, encoded...)
		for _, e := range decided {
			if err := state.Apply(e); err != nil {
				return abandon()
			}
			state.Version++
		}
	}
	if len(events) == 0 {
		// Nothing would prove the state current: each runs alone, which checks it.
		return abandon()
	}

	// One append for the whole group; each command's projections and the reads of its
	// answer then follow in its turn, so that its answer sees its own effects and none
	// of those after it.
	b := &pgx.Batch{}
	if keyed {
		b.Queue("begin")
	}
	appended := eventstore.QueueAppend(b, domain.StreamID(entry.id), start, events, l.now())
	recorded := appended.Events()
	for i := range members {
		m := &members[i]
		if m.refusal != nil {
			continue
		}
		m.write = &queuedWrite{res: Result{Version: m.version}}
		if n := len(m.decided); n > 0 {
			projection := l.project()
			if err := queueProjection(b, projection, recorded[:n], m.decided, &m.write.res, true); err != nil {
				return abandon()
			}
			projection.Flush(b)
			recorded = recorded[n:]
		}
		m.write.queueAnswer(b, m.q.call)
	}

	db := eventstore.DB(l.pool)
	if keyed {
		conn, err := l.pool.Acquire(ctx)
		if err != nil {
			return abandon()
		}
		// A connection released inside a transaction is closed by the pool.
		defer conn.Release()
		db = conn
	}
	rollback := func() {
		if keyed {
			_, _ = db.Exec(context.WithoutCancel(ctx), "rollback")
		}
	}
	sendErr := db.SendBatch(ctx, b).Close()
	if err := appended.Err(); err != nil || sendErr != nil {
		rollback()
		if errors.Is(err, eventstore.ErrVersionConflict) {
			l.metrics.Conflicted()
		}
		if keyed || errors.Is(err, eventstore.ErrVersionConflict) {
			return abandon() // nothing committed
		}
		if err == nil {
			err = fmt.Errorf("ledger: append and project: %w", sendErr)
		}
		return failGroup(entry, members, alone, err)
	}
	for i := range members {
		m := &members[i]
		if m.write == nil {
			continue
		}
		var err error
		if m.res, err = m.write.answer(ctx, db); err != nil {
			if keyed {
				rollback()
				return abandon()
			}
			// The group has committed: only this command's answer is missing.
			m.write, m.refusal = nil, err
		}
	}
	if keyed {
		if err := l.recordGroupKeys(ctx, db, entry, members); err != nil {
			rollback()
			var pg *pgconn.PgError
			if errors.As(err, &pg) && pg.Code == uniqueViolation {
				return abandon()
			}
			return failGroup(entry, members, alone, err)
		}
	}
	for _, m := range members {
		if m.write == nil {
			m.q.finish(Result{}, m.refusal)
		} else {
			m.q.finish(m.res, nil)
		}
	}
	l.metrics.Appended(len(events))
	l.afterCommit(ctx, entry, true)
	return alone
}

// recordGroupKeys records the results of the group's keyed commands and commits the
// group's transaction.
func (l *Ledger) recordGroupKeys(ctx context.Context, db eventstore.DB, entry *cacheEntry, members []groupMember) error {
	b := &pgx.Batch{}
	for _, m := range members {
		if m.write == nil || m.q.call.Idempotency == nil {
			continue
		}
		insert, args, err := idempotencyInsert(entry.id, m.q.call.Idempotency, m.res, l.now())
		if err != nil {
			return err
		}
		b.Queue(insert, args...)
	}
	b.Queue("commit")
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("ledger: record the group's idempotency keys and commit: %w", err)
	}
	return nil
}

// failGroup answers every command of a group whose write failed in a way that leaves
// unknown whether it committed (the connection broke, say) with that failure, as a
// command alone would be; the state is reloaded by the next command.
func failGroup(entry *cacheEntry, members []groupMember, alone []*queuedCall, err error) []*queuedCall {
	entry.state = nil
	for _, m := range members {
		m.q.finish(Result{}, err)
	}
	return alone
}
