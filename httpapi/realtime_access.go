package httpapi

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/commands"
)

// realtimeStreamsPerToken bounds the streams one token holds open at once, on every
// instance together.
const realtimeStreamsPerToken = 5

// Defaults of RealtimeOptions.
const (
	defaultRealtimeCheck = 2 * time.Second
	defaultRealtimeLease = 10 * time.Second
)

// RealtimeOptions tune how instances keep their realtime streams within their users'
// access and their tokens' bound; zero values take the defaults.
type RealtimeOptions struct {
	// CheckInterval is how often an instance renews its lease and checks, in one round
	// trip for all its streams, that their users may still read their workspaces: a
	// stream whose user lost access ends within about this long. Default 2 s.
	CheckInterval time.Duration
	// Lease is how long the streams of an instance that stopped renewing (killed, or cut
	// off from the database) still count against their tokens. Several check intervals;
	// default 10 s.
	Lease time.Duration
}

// realtimeLockClass is the first key of the transaction advisory locks that serialise
// the opening of one token's streams; two-key advisory locks never meet the one-key
// locks of leaders and migrations.
const realtimeLockClass int32 = 0x72746f6b // "rtok"

// Reasons a stream's user lost access, sent in the revoked event and in the 403 of a
// stream refused for them.
const (
	revokedAccountDeleted   = "account_deleted"
	revokedWorkspaceDeleted = "workspace_deleted"
	revokedMemberRemoved    = "member_removed"
	revokedRoleChanged      = "role_changed"
)

// realtimeAccessEvents change who may read a workspace: a stream that sees one on its
// workspace's subject has its instance check access at once instead of at the next tick.
var realtimeAccessEvents = map[string]bool{
	commands.TypeMemberRemoved:     true,
	commands.TypeMemberRoleChanged: true,
	commands.TypeWorkspaceDeleted:  true,
}

// realtimeAccessSQL reads, for each row r carrying user_id and workspace_id, what
// decides whether that user may read that workspace's stream (see realtimeAccess).
const (
	realtimeAccessColumns = `u.id IS NULL OR u.deleted_at IS NOT NULL, w.id IS NULL OR w.deleted_at IS NOT NULL, m.role`
	realtimeAccessJoins   = ` LEFT JOIN users u ON u.id = r.user_id
		LEFT JOIN workspaces w ON w.id = r.workspace_id
		LEFT JOIN workspace_members m ON m.workspace_id = r.workspace_id AND m.user_id = r.user_id`
)

// renewLeaseSQL takes or extends an instance's lease by $2 milliseconds of the
// database's clock, the one clock every instance's lease is measured by.
const renewLeaseSQL = `INSERT INTO realtime_instances (instance_id, expires_at)
	VALUES ($1, now() + $2::bigint * interval '1 millisecond')
	ON CONFLICT (instance_id) DO UPDATE SET expires_at = excluded.expires_at`

// expireLeasesSQL deletes the instances whose lease ran out, with their streams. SKIP
// LOCKED: instances clearing at once never wait on, or deadlock with, each other.
const expireLeasesSQL = `WITH gone AS (
		DELETE FROM realtime_instances WHERE instance_id IN
			(SELECT instance_id FROM realtime_instances WHERE expires_at < now() FOR UPDATE SKIP LOCKED)
		RETURNING instance_id)
	DELETE FROM realtime_streams WHERE instance_id IN (SELECT instance_id FROM gone)`

// realtimeAccess is what decides whether a user may read a workspace's stream.
type realtimeAccess struct {
	accountDeleted, workspaceDeleted bool
	role                             *string // nil: not a member
}

// lost returns why the user may not read the stream, or "" if they may: a member of a
// live workspace, with a live account, whose role grants what the token needed.
func (a realtimeAccess) lost() string {
	switch {
	case a.accountDeleted:
		return revokedAccountDeleted
	case a.workspaceDeleted:
		return revokedWorkspaceDeleted
	case a.role == nil:
		return revokedMemberRemoved
	case !commands.Grants(commands.RoleScopes(*a.role), scopeTransactionsRead):
		return revokedRoleChanged
	}
	return ""
}

// realtimeStreams are the realtime streams open on this instance and what keeps them
// honest across instances. Each has a row in realtime_streams naming this instance,
// which holds a lease in realtime_instances. While any stream is open, one goroutine
// (watch) sends one batch every check interval, or at once when a stream saw an
// access event: renew the lease, delete the streams of instances whose lease ran out,
// and read the access of every stream open here. So the cost is one round trip per
// instance per tick however many streams it serves; a removal made through another
// instance, or an account deleted (whose event never reaches the workspace's subject),
// is seen within a tick, and the periodic check covers events the NATS subscription
// missed while reconnecting.
type realtimeStreams struct {
	pool     *pgxpool.Pool
	instance uuid.UUID
	interval time.Duration
	lease    time.Duration
	wake     chan struct{}

	mu       sync.Mutex
	open     map[uuid.UUID]chan string // each stream's end: why access was lost, or "" when its row is gone
	watching bool
}

func newRealtimeStreams(pool *pgxpool.Pool, opts RealtimeOptions) *realtimeStreams {
	h := &realtimeStreams{pool: pool, instance: uuid.New(), interval: opts.CheckInterval, lease: opts.Lease,
		wake: make(chan struct{}, 1), open: map[uuid.UUID]chan string{}}
	if h.interval <= 0 {
		h.interval = defaultRealtimeCheck
	}
	if h.lease <= 0 {
		h.lease = defaultRealtimeLease
	}
	return h
}

// realtimeStream is a stream admitted on this instance.
type realtimeStream struct {
	id, workspaceID uuid.UUID
	// end receives why the stream must end: a revoked reason, or "" when its slot was
	// lost (its lease ran out while this instance could not renew it).
	end <-chan string
}

// admit checks that the token's user may still read its workspace and that the token
// has a stream left, and records a new stream open on this instance. The opening of
// one token's streams is serialised by an advisory lock, so instances opening them at
// once cannot both take the last one. Errors: 403 FORBIDDEN (details.reason says why
// access was lost), 429 TOO_MANY_STREAMS.
func (h *realtimeStreams) admit(ctx context.Context, c realtimeClaims) (*realtimeStream, error) {
	id := uuid.New()
	err := pgx.BeginFunc(ctx, h.pool, func(tx pgx.Tx) error {
		var access realtimeAccess
		var open int
		b := &pgx.Batch{}
		b.Queue(`SELECT pg_advisory_xact_lock($1, $2)`, realtimeLockClass, int32(binary.BigEndian.Uint32(c.key[:4])))
		b.Queue(renewLeaseSQL, h.instance, h.lease.Milliseconds())
		b.Queue(`SELECT `+realtimeAccessColumns+`,
				(SELECT count(*) FROM realtime_streams s JOIN realtime_instances i ON i.instance_id = s.instance_id
				WHERE s.workspace_id = r.workspace_id AND s.token_hash = $3 AND i.expires_at > now())
			FROM (VALUES ($1::uuid, $2::uuid)) r (user_id, workspace_id)`+realtimeAccessJoins,
			c.UserID, c.WorkspaceID, c.key[:]).QueryRow(func(row pgx.Row) error {
			return row.Scan(&access.accountDeleted, &access.workspaceDeleted, &access.role, &open)
		})
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("httpapi: realtime admit: %w", err)
		}
		if reason := access.lost(); reason != "" {
			return &apiError{Status: http.StatusForbidden, Code: "FORBIDDEN",
				Message: "the token's user may no longer read this workspace's events", Details: map[string]string{"reason": reason}}
		}
		if open >= realtimeStreamsPerToken {
			seconds := int(math.Ceil(h.lease.Seconds()))
			return &apiError{Status: http.StatusTooManyRequests, Code: "TOO_MANY_STREAMS",
				Message: fmt.Sprintf("this token already has %d streams open; close one, or retry in %d s", open, seconds),
				Details: map[string]int{"limit": realtimeStreamsPerToken, "retryAfterSeconds": seconds}, RetryAfter: seconds}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO realtime_streams (workspace_id, id, user_id, token_hash, instance_id)
			VALUES ($1, $2, $3, $4, $5)`, c.WorkspaceID, id, c.UserID, c.key[:], h.instance); err != nil {
			return fmt.Errorf("httpapi: realtime admit: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	end := make(chan string, 1)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.open[id] = end
	if !h.watching {
		h.watching = true
		go h.watch()
	}
	return &realtimeStream{id: id, workspaceID: c.WorkspaceID, end: end}, nil
}

// release forgets a stream that ended and deletes its row, even when the request that
// held it was cancelled. Should the delete fail, the row stops counting when this
// instance's lease ends, and it only ever counts against a token that opens streams for
// five minutes.
func (h *realtimeStreams) release(ctx context.Context, st *realtimeStream) {
	h.mu.Lock()
	delete(h.open, st.id)
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if _, err := h.pool.Exec(ctx, `DELETE FROM realtime_streams WHERE workspace_id = $1 AND id = $2`, st.workspaceID, st.id); err != nil {
		slog.WarnContext(ctx, "realtime: release stream", "stream", st.id, "err", err)
	}
}

// nudge has the streams' access checked now rather than at the next tick.
func (h *realtimeStreams) nudge() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// watch checks the streams every interval, or when nudged, until none is open.
func (h *realtimeStreams) watch() {
	tick := time.NewTicker(h.interval)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-h.wake:
		}
		h.mu.Lock()
		if len(h.open) == 0 {
			h.watching = false
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
		// A check that cannot finish within the lease has lost it anyway.
		ctx, cancel := context.WithTimeout(context.Background(), h.lease)
		if err := h.check(ctx); err != nil {
			slog.Error("realtime: check streams", "err", err)
		}
		cancel()
	}
}

// check renews the lease, clears dead instances' streams and ends the streams open
// here whose user lost access or whose row is gone, in one round trip.
func (h *realtimeStreams) check(ctx context.Context) error {
	// Streams admitted before the batch is sent have committed rows it will see.
	h.mu.Lock()
	ends := maps.Clone(h.open)
	h.mu.Unlock()
	access := make(map[uuid.UUID]realtimeAccess, len(ends))
	b := &pgx.Batch{}
	b.Queue(renewLeaseSQL, h.instance, h.lease.Milliseconds())
	b.Queue(expireLeasesSQL)
	b.Queue(`SELECT r.id, `+realtimeAccessColumns+` FROM realtime_streams r`+realtimeAccessJoins+`
		WHERE r.instance_id = $1`, h.instance).Query(func(rows pgx.Rows) error {
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
		return fmt.Errorf("httpapi: realtime check: %w", err)
	}
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
