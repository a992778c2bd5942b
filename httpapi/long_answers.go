package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Long answers are those whose length grows with the workspace, or with time: the
// realtime stream, and the bulk reads (the audit export, reports, the change feed's
// pages). A long answer holds no database connection while it waits on its client: it
// reads what it sends first (a page at a time, or whole when it is bounded), and writes
// it after. It writes in chunks, each given a deadline to leave, so a client that stops
// reading is cut off within seconds. And a person, a workspace and a realtime token each
// have a bounded number open at once, counted across instances.

// Kinds of long answer, as long_answers.kind stores them.
const (
	kindRealtime = "realtime"
	kindBulk     = "bulk"
)

// Defaults of LongAnswerOptions, and the bound of a token's realtime streams.
const (
	defaultBulkReadsPerUser    = 4
	defaultStreamsPerUser      = 10
	defaultStreamsPerWorkspace = 100
	realtimeStreamsPerToken    = 5
	defaultWriteDeadline       = 10 * time.Second
)

// answerChunk is how much of a long answer is written at a time, under one deadline.
const answerChunk = 32 << 10

// LongAnswerOptions bound the long answers: the realtime streams and the bulk reads
// (the audit export, reports, the change feed's pages); zero values take the defaults.
type LongAnswerOptions struct {
	// BulkReadsPerUser bounds the bulk reads a person has on their way at once, on every
	// instance together, whatever credentials they use. Default 4.
	BulkReadsPerUser int
	// StreamsPerUser and StreamsPerWorkspace bound the realtime streams open at once, on
	// every instance together, of a person (default 10) and on a workspace (default
	// 100); a token opens at most 5.
	StreamsPerUser, StreamsPerWorkspace int
	// WriteDeadline is how long a chunk of a long answer may wait for its client to take
	// it: a client that stops reading is cut off after that. Default 10 s.
	WriteDeadline time.Duration
}

// withDefaults fills the options left out.
func (o LongAnswerOptions) withDefaults() LongAnswerOptions {
	if o.BulkReadsPerUser <= 0 {
		o.BulkReadsPerUser = defaultBulkReadsPerUser
	}
	if o.StreamsPerUser <= 0 {
		o.StreamsPerUser = defaultStreamsPerUser
	}
	if o.StreamsPerWorkspace <= 0 {
		o.StreamsPerWorkspace = defaultStreamsPerWorkspace
	}
	if o.WriteDeadline <= 0 {
		o.WriteDeadline = defaultWriteDeadline
	}
	return o
}

// Defaults of RealtimeOptions.
const (
	defaultRealtimeCheck = 2 * time.Second
	defaultRealtimeLease = 10 * time.Second
)

// RealtimeOptions tune how instances keep their realtime streams within their users'
// access, and their long answers counted; zero values take the defaults.
type RealtimeOptions struct {
	// CheckInterval is how often an instance renews its lease and checks, in one round
	// trip for all its streams, that their users may still read their workspaces: a
	// stream whose user lost access ends within about this long. Default 2 s.
	CheckInterval time.Duration
	// Lease is how long the long answers of an instance that stopped renewing (killed, or
	// cut off from the database) still count against their limits. Several check
	// intervals; default 10 s.
	Lease time.Duration
}

// Two-key advisory locks serialise the opening of long answers: one per person, and for
// streams one per workspace first, so that instances opening answers at once cannot
// both take the last place. Two-key locks never meet the one-key locks of leaders and
// migrations; taken in that order, they never deadlock.
const (
	userAnswersLock      int32 = 0x6c617573 // "laus"
	workspaceAnswersLock int32 = 0x6c617773 // "laws"
)

// renewLeaseSQL takes or extends an instance's lease by $2 milliseconds of the
// database's clock, the one clock every instance's lease is measured by.
const renewLeaseSQL = `INSERT INTO answer_instances (instance_id, expires_at)
	VALUES ($1, now() + $2::bigint * interval '1 millisecond')
	ON CONFLICT (instance_id) DO UPDATE SET expires_at = excluded.expires_at`

// expireLeasesSQL deletes the instances whose lease ran out, with their answers. SKIP
// LOCKED: instances clearing at once never wait on, or deadlock with, each other.
const expireLeasesSQL = `WITH gone AS (
		DELETE FROM answer_instances WHERE instance_id IN
			(SELECT instance_id FROM answer_instances WHERE expires_at < now() FOR UPDATE SKIP LOCKED)
		RETURNING instance_id)
	DELETE FROM long_answers WHERE instance_id IN (SELECT instance_id FROM gone)`

// countOpenSQL counts the live answers of a kind ($1) that a new one would join: its
// token's ($4), its person's ($2) and its workspace's ($3).
const countOpenSQL = `SELECT count(*) FILTER (WHERE a.token_hash = $4), count(*) FILTER (WHERE a.user_id = $2),
		count(*) FILTER (WHERE a.workspace_id = $3)
	FROM long_answers a JOIN answer_instances i ON i.instance_id = a.instance_id
	WHERE a.kind = $1 AND (a.user_id = $2 OR a.workspace_id = $3) AND i.expires_at > now()`

// longAnswers are the long answers open on this instance and what keeps them counted
// across instances. Each has a row in long_answers naming this instance, which holds a
// lease in answer_instances. While any is open, one goroutine (watch) sends one batch
// every check interval, or at once when a stream saw an access event: renew the lease,
// delete the answers of instances whose lease ran out, and read the access of every
// stream open here. So the cost is one round trip per instance per tick however many
// answers it serves; a removal made through another instance, or an account deleted
// (whose event never reaches the workspace's subject), is seen within a tick, and the
// periodic check covers events the NATS subscription missed while reconnecting.
type longAnswers struct {
	pool     *pgxpool.Pool
	instance uuid.UUID
	interval time.Duration
	lease    time.Duration
	limits   LongAnswerOptions
	wake     chan struct{}

	mu       sync.Mutex
	streams  map[uuid.UUID]chan string // each stream's end: why access was lost, or "" when its row is gone
	bulk     int                       // bulk reads open
	watching bool
	renewed  time.Time // when the last renewal of the lease that took effect was sent
}

func newLongAnswers(pool *pgxpool.Pool, realtime RealtimeOptions, limits LongAnswerOptions) *longAnswers {
	h := &longAnswers{pool: pool, instance: uuid.New(), interval: realtime.CheckInterval, lease: realtime.Lease,
		limits: limits.withDefaults(), wake: make(chan struct{}, 1), streams: map[uuid.UUID]chan string{}}
	if h.interval <= 0 {
		h.interval = defaultRealtimeCheck
	}
	if h.lease <= 0 {
		h.lease = defaultRealtimeLease
	}
	return h
}

// answerClaim is a long answer asking for its place.
type answerClaim struct {
	kind            string
	user, workspace uuid.UUID
	token           []byte // a stream's token key; nil for a bulk read
}

// answerCounts are the live answers a claim would join, counted.
type answerCounts struct{ token, user, workspace int }

// longAnswer is a long answer admitted on this instance.
type longAnswer struct {
	id, workspaceID uuid.UUID
	kind            string
	// end receives, for a stream, why it must end: a revoked reason, or "" when its slot
	// was lost (its lease ran out while this instance could not renew it).
	end <-chan string
}

// admit records a new long answer open on this instance, unless the answers it would
// join are at their limits. In the same round trip it queues what check needs (nil:
// nothing), whose verdict comes before the limits'. Errors: check's, 429
// TOO_MANY_STREAMS or TOO_MANY_BULK_READS.
func (h *longAnswers) admit(ctx context.Context, c answerClaim, check func(*pgx.Batch) func() error) (*longAnswer, error) {
	if err := h.holdLease(ctx); err != nil {
		return nil, err
	}
	id := uuid.New()
	err := pgx.BeginFunc(ctx, h.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		if c.kind == kindRealtime {
			b.Queue(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, workspaceAnswersLock, c.workspace.String())
		}
		b.Queue(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, userAnswersLock, c.user.String())
		var open answerCounts
		b.Queue(countOpenSQL, c.kind, c.user, c.workspace, c.token).QueryRow(func(row pgx.Row) error {
			return row.Scan(&open.token, &open.user, &open.workspace)
		})
		verdict := func() error { return nil }
		if check != nil {
			verdict = check(b)
		}
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("httpapi: admit a long answer: %w", err)
		}
		if err := verdict(); err != nil {
			return err
		}
		if err := h.refuse(c.kind, open); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO long_answers (workspace_id, id, user_id, kind, token_hash, instance_id)
			VALUES ($1, $2, $3, $4, $5, $6)`, c.workspace, id, c.user, c.kind, c.token, h.instance); err != nil {
			return fmt.Errorf("httpapi: admit a long answer: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	a := &longAnswer{id: id, workspaceID: c.workspace, kind: c.kind}
	h.mu.Lock()
	defer h.mu.Unlock()
	if c.kind == kindRealtime {
		end := make(chan string, 1)
		h.streams[id], a.end = end, end
	} else {
		h.bulk++
	}
	if !h.watching {
		h.watching = true
		go h.watch()
	}
	return a, nil
}

// holdLease renews the instance's lease unless a renewal sent within half a lease took
// effect, so that the answer about to be admitted counts for at least that long (and
// watch renews it every check interval from then on). The renewal is a statement of its
// own: the lease's row is locked for it alone, not for an admission's transaction, and
// answers opening at once on this instance do not queue behind one another.
func (h *longAnswers) holdLease(ctx context.Context) error {
	h.mu.Lock()
	due := time.Since(h.renewed) > h.lease/2
	h.mu.Unlock()
	if !due {
		return nil
	}
	sent := time.Now()
	if _, err := h.pool.Exec(ctx, renewLeaseSQL, h.instance, h.lease.Milliseconds()); err != nil {
		return fmt.Errorf("httpapi: renew the long answers' lease: %w", err)
	}
	h.renewedAt(sent)
	return nil
}

// renewedAt notes a renewal of the lease sent at sent that took effect.
func (h *longAnswers) renewedAt(sent time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if sent.After(h.renewed) {
		h.renewed = sent
	}
}

// refuse answers 429 when the answers a new one of kind would join are at a limit. A
// place frees when an answer ends, or when its instance's lease runs out: Retry-After
// is the lease.
func (h *longAnswers) refuse(kind string, open answerCounts) error {
	code, what, limit, count := "TOO_MANY_BULK_READS", "you already have %d bulk reads (exports, reports, change-feed pages) on their way", h.limits.BulkReadsPerUser, open.user
	if kind == kindRealtime {
		code = "TOO_MANY_STREAMS"
		switch {
		case open.token >= realtimeStreamsPerToken:
			what, limit, count = "this token already has %d streams open", realtimeStreamsPerToken, open.token
		case open.user >= h.limits.StreamsPerUser:
			what, limit, count = "you already have %d streams open", h.limits.StreamsPerUser, open.user
		default:
			what, limit, count = "this workspace already has %d streams open", h.limits.StreamsPerWorkspace, open.workspace
		}
	}
	if count < limit {
		return nil
	}
	seconds := int(math.Ceil(h.lease.Seconds()))
	return &apiError{Status: http.StatusTooManyRequests, Code: code,
		Message:    fmt.Sprintf(what+"; close one, or retry in %d s", count, seconds),
		Details:    map[string]int{"limit": limit, "retryAfterSeconds": seconds},
		RetryAfter: seconds}
}

// release forgets an answer that ended and deletes its row, even when the request that
// held it was cancelled. Should the delete fail, the row stops counting when this
// instance's lease ends.
func (h *longAnswers) release(ctx context.Context, a *longAnswer) {
	h.mu.Lock()
	if a.kind == kindRealtime {
		delete(h.streams, a.id)
	} else {
		h.bulk--
	}
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if _, err := h.pool.Exec(ctx, `DELETE FROM long_answers WHERE workspace_id = $1 AND id = $2`, a.workspaceID, a.id); err != nil {
		slog.WarnContext(ctx, "release a long answer", "kind", a.kind, "answer", a.id, "err", err)
	}
}

// nudge has the streams' access checked now rather than at the next tick.
func (h *longAnswers) nudge() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// watch checks the answers every interval, or when nudged, until none is open.
func (h *longAnswers) watch() {
	tick := time.NewTicker(h.interval)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-h.wake:
		}
		h.mu.Lock()
		if len(h.streams) == 0 && h.bulk == 0 {
			h.watching = false
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
		// A check that cannot finish within the lease has lost it anyway.
		ctx, cancel := context.WithTimeout(context.Background(), h.lease)
		if err := h.check(ctx); err != nil {
			slog.Error("check the long answers", "err", err)
		}
		cancel()
	}
}

// check renews the lease, clears dead instances' answers and ends the streams open
// here whose user lost access or whose row is gone, in one round trip.
func (h *longAnswers) check(ctx context.Context) error {
	// Streams admitted before the batch is sent have committed rows it will see.
	h.mu.Lock()
	ends := make(map[uuid.UUID]chan string, len(h.streams))
	for id, end := range h.streams {
		ends[id] = end
	}
	h.mu.Unlock()
	access := make(map[uuid.UUID]realtimeAccess, len(ends))
	sent := time.Now()
	b := &pgx.Batch{}
	b.Queue(renewLeaseSQL, h.instance, h.lease.Milliseconds())
	b.Queue(expireLeasesSQL)
	b.Queue(`SELECT r.id, `+realtimeAccessColumns+` FROM long_answers r`+realtimeAccessJoins+`
		WHERE r.instance_id = $1 AND r.kind = $2`, h.instance, kindRealtime).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var id uuid.UUID
			var a realtimeAccess
			if err := rows.Scan(&id, &a.accountDeleted, &a.workspaceDeleted, &a.role); err != nil {
				return err
			}
			access[id] = a
		}
		return rows.Err()
	})
	if err := h.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("httpapi: check the long answers: %w", err)
	}
	h.renewedAt(sent)
	for id, end := range ends {
		reason := "" // no row: the slot was lost with the lease
		if a, held := access[id]; held {
			if reason = a.lost(); reason == "" {
				continue
			}
		}
		select {
		case end <- reason:
		default: // already told
		}
	}
	return nil
}

// readInBulk runs the handler of a bulk read once its caller has a place for it, and
// writes its answer in chunks (answerWriter).
func (s *Server) readInBulk(w http.ResponseWriter, r *http.Request, p *principal, h handler) {
	a, err := s.answers.admit(r.Context(), answerClaim{kind: kindBulk, user: p.User.ID, workspace: p.Workspace.ID}, nil)
	if err != nil {
		writeError(w, r, err)
		return
	}
	defer s.answers.release(r.Context(), a)
	out := s.answers.writer(w)
	h(s, out, r)
	out.finish()
}

// writer returns an answerWriter onto w with this server's write deadline.
func (h *longAnswers) writer(w http.ResponseWriter) *answerWriter {
	return &answerWriter{ResponseWriter: w, rc: http.NewResponseController(w), deadline: h.limits.WriteDeadline}
}

// answerWriter writes a long answer in chunks of answerChunk bytes, or of whatever is
// there when flushed, giving each the write deadline to reach the connection: however
// long the answer, a client that stops reading is cut off within the deadline, and
// one that reads slowly but steadily is not cut off. It replaces the server's write
// timeout, which bounds a whole answer.
type answerWriter struct {
	http.ResponseWriter
	rc       *http.ResponseController
	deadline time.Duration
	buf      []byte
	err      error // the write that failed: the answer is cut short
}

func (a *answerWriter) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 && a.err == nil {
		n := min(answerChunk-len(a.buf), len(p))
		a.buf, p, written = append(a.buf, p[:n]...), p[n:], written+n
		if len(a.buf) == answerChunk {
			a.send(true)
		}
	}
	return written, a.err
}

// FlushError sends what was written so far (the realtime stream sends each event so).
func (a *answerWriter) FlushError() error {
	a.send(true)
	return a.err
}

// finish sends the rest, leaving the last flush to the server as the handler returns
// (a short answer keeps its Content-Length), under a deadline of its own.
func (a *answerWriter) finish() { a.send(false) }

// send writes what is buffered under a new deadline, and flushes it if asked.
func (a *answerWriter) send(flush bool) {
	if a.err != nil {
		return
	}
	if err := a.rc.SetWriteDeadline(time.Now().Add(a.deadline)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		a.err = fmt.Errorf("httpapi: write deadline: %w", err)
		return
	}
	if len(a.buf) > 0 {
		_, a.err = a.ResponseWriter.Write(a.buf)
		a.buf = a.buf[:0]
	}
	if a.err == nil && flush {
		a.err = a.rc.Flush()
	}
}

// Unwrap lets a ResponseController reach the server's writer.
func (a *answerWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }
