package ledger

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
)

// Link code rules (spec 4.B, 5.4 rule 9).
const (
	// LinkCodeLifetime is how long a link code can be used.
	LinkCodeLifetime       = 10 * time.Minute
	linkFailuresBeforeLock = 5
	linkLockDuration       = 15 * time.Minute
	// linkCodeDraws bounds the codes one issue draws while each drawn is taken.
	linkCodeDraws = 5
)

// The refusals of a link code. They are validation errors (400), never a 404, so that
// a guess learns nothing more than "wrong".
var (
	ErrLinkCodeInvalid = &domain.Error{Kind: domain.KindValidation, Code: "WHATSAPP_CODE_INVALID",
		Message: "this link code is not valid: ask for a new one in Settings > WhatsApp"}
	ErrLinkCodeExpired = &domain.Error{Kind: domain.KindValidation, Code: "WHATSAPP_CODE_EXPIRED",
		Message: "this link code has expired: ask for a new one in Settings > WhatsApp"}
	ErrLinkCodeLocked = &domain.Error{Kind: domain.KindValidation, Code: "WHATSAPP_CODE_LOCKED",
		Message: "too many wrong codes from this number: try again in 15 minutes"}
)

// ErrNoFreeLinkCode is returned when every link code an issue drew was taken already:
// with codes drawn at random from a large space, only a broken source of randomness
// does that.
var ErrNoFreeLinkCode = errors.New("ledger: every link code drawn is taken")

// IssueLinkCode stores a one-time link code for a user and returns it with when it
// expires: LinkCodeLifetime after now. draw gives a fresh code and its key (the code's
// hash, what is stored: the code itself never is).
//
// Rules: a user has at most one unused code, and each call replaces it, so a retry is
// harmless. The replacement is one upsert on the user's live code, so calls at once, on
// any instances, leave one live code: the one of the call that committed last, as if
// they had come one after the other. Every code ever issued keeps its key, spent or
// expired, so a drawn code whose key is stored already (another user's, at once on
// another instance or long ago) is drawn again, up to linkCodeDraws codes; then
// ErrNoFreeLinkCode.
func IssueLinkCode(ctx context.Context, db eventstore.DB, draw func() (code, key string, err error), userID, workspaceID uuid.UUID, now time.Time) (string, time.Time, error) {
	expires := now.Add(LinkCodeLifetime)
	for range linkCodeDraws {
		code, key, err := draw()
		if err != nil {
			return "", time.Time{}, fmt.Errorf("ledger: draw link code: %w", err)
		}
		_, err = db.Exec(ctx, `INSERT INTO whatsapp_link_codes (code_hash, user_id, workspace_id, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (user_id) WHERE used_at IS NULL DO UPDATE SET code_hash = excluded.code_hash,
				workspace_id = excluded.workspace_id, created_at = excluded.created_at, expires_at = excluded.expires_at`,
			key, userID, workspaceID, now, expires)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == uniqueViolation && pgErr.ConstraintName == "whatsapp_link_codes_pkey" {
			continue
		}
		if err != nil {
			return "", time.Time{}, fmt.Errorf("ledger: issue link code: %w", err)
		}
		return code, expires, nil
	}
	return "", time.Time{}, ErrNoFreeLinkCode
}

// LinkPhoneByCode links the phone of a chat-channel request to the user who was given
// the one-time code stored under CodeKey, and points the channel at the code's
// workspace.
//
// Rules: the code is spent by the link's own transaction (decision 12): the request
// that locks the code's row first spends it, and any other, on any instance, waits for
// it to commit and then finds it spent. A phone that spent the code already is told it
// is linked. Each wrong or expired code counts against the phone, and the fifth in a
// row locks it out for 15 minutes; a link clears the count.
//
// Errors: WHATSAPP_CODE_INVALID (no such code, or spent by another phone),
// WHATSAPP_CODE_EXPIRED, WHATSAPP_CODE_LOCKED.
type LinkPhoneByCode struct {
	CodeKey     string
	LinkID      uuid.UUID
	PhoneKey    []byte
	PhoneMasked string
	Fingerprint string
	// Metadata is the request's; the link is its actor.
	Metadata Metadata
	Now      time.Time
}

// LinkedPhone is what a link by code did.
type LinkedPhone struct {
	WorkspaceID uuid.UUID // the workspace the channel points at
	// AlreadyLinked reports a phone that had spent the code before: nothing changed.
	AlreadyLinked bool
}

// LinkPhoneByCode runs the link: it checks the phone's lockout and the code, links the
// phone on the code's user's stream while spending the code, and counts a refused
// code against the phone.
func (l *Ledger) LinkPhoneByCode(ctx context.Context, c LinkPhoneByCode) (LinkedPhone, error) {
	var lockedUntil *time.Time
	err := l.pool.QueryRow(ctx, `SELECT locked_until FROM whatsapp_link_failures WHERE phone_key = $1`, c.PhoneKey).Scan(&lockedUntil)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return LinkedPhone{}, fmt.Errorf("ledger: read link failures: %w", err)
	}
	if lockedUntil != nil && lockedUntil.After(c.Now) {
		return LinkedPhone{}, ErrLinkCodeLocked
	}
	found, err := readLinkCode(ctx, l.pool, c.CodeKey, false)
	if err == nil {
		err = found.refusal(c.PhoneKey, c.Now)
	}
	if err == nil {
		err = l.spendLinkCode(ctx, c, found)
	}
	switch {
	case err == nil:
		return LinkedPhone{WorkspaceID: found.workspaceID}, nil
	case errors.Is(err, errLinkedBefore):
		return LinkedPhone{WorkspaceID: found.workspaceID, AlreadyLinked: true}, nil
	case errors.Is(err, ErrLinkCodeInvalid) || errors.Is(err, ErrLinkCodeExpired):
		if err := l.countLinkFailure(ctx, c.PhoneKey, c.Now); err != nil {
			return LinkedPhone{}, err
		}
	}
	return LinkedPhone{}, err
}

// linkCode is a stored link code.
type linkCode struct {
	userID, workspaceID uuid.UUID
	expires             time.Time
	usedBy              []byte // the key of the phone that spent it; nil while unused
}

// errLinkedBefore refuses a code the same phone spent already: its answer is that the
// phone is linked.
var errLinkedBefore = errors.New("ledger: this phone spent the link code already")

// readLinkCode reads the code stored under key, ErrLinkCodeInvalid when there is none.
// forUpdate locks its row, waiting for a transaction that is spending it to end.
func readLinkCode(ctx context.Context, db eventstore.DB, key string, forUpdate bool) (linkCode, error) {
	q := `SELECT user_id, workspace_id, expires_at, used_by FROM whatsapp_link_codes WHERE code_hash = $1`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	var c linkCode
	err := db.QueryRow(ctx, q, key).Scan(&c.userID, &c.workspaceID, &c.expires, &c.usedBy)
	if errors.Is(err, pgx.ErrNoRows) {
		return linkCode{}, ErrLinkCodeInvalid
	}
	if err != nil {
		return linkCode{}, fmt.Errorf("ledger: read link code: %w", err)
	}
	return c, nil
}

// refusal says why the phone cannot spend the code at now, nil when it can.
func (c linkCode) refusal(phoneKey []byte, now time.Time) error {
	switch {
	case c.usedBy == nil && c.expires.After(now):
		return nil
	case bytes.Equal(c.usedBy, phoneKey):
		return errLinkedBefore
	case c.usedBy != nil:
		return ErrLinkCodeInvalid
	}
	return ErrLinkCodeExpired
}

// spendLinkCode links the phone to the code's user, spending the code in the link's own
// transaction through the command's claim.
func (l *Ledger) spendLinkCode(ctx context.Context, c LinkPhoneByCode, code linkCode) error {
	var personal uuid.UUID
	if err := l.pool.QueryRow(ctx, `SELECT personal_workspace_id FROM users WHERE id = $1`, code.userID).Scan(&personal); err != nil {
		return fmt.Errorf("ledger: the link code's user: %w", err)
	}
	link := domain.LinkPhone{LinkID: c.LinkID, PhoneKey: c.PhoneKey, PhoneMasked: c.PhoneMasked, WorkspaceID: code.workspaceID,
		Fingerprint: c.Fingerprint}
	meta := c.Metadata
	meta.ActorID, meta.UserID = c.LinkID.String(), code.userID
	claim := func(ctx context.Context, tx pgx.Tx) error {
		current, err := readLinkCode(ctx, tx, c.CodeKey, true)
		if err == nil {
			err = current.refusal(c.PhoneKey, c.Now)
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE whatsapp_link_codes SET used_at = $2, used_by = $3 WHERE code_hash = $1`,
			c.CodeKey, c.Now, c.PhoneKey); err != nil {
			return fmt.Errorf("ledger: spend link code: %w", err)
		}
		// A link clears the phone's failures, unless a failure counted since the check
		// above locked the phone. Writing the phone's row also locks it, so two links of
		// one phone (with two users' codes) commit one after the other, and the later
		// one's projection finds the earlier link to take the phone from.
		tag, err := tx.Exec(ctx, `INSERT INTO whatsapp_link_failures AS f (phone_key, failures, updated_at) VALUES ($1, 0, $2)
			ON CONFLICT (phone_key) DO UPDATE SET failures = 0, locked_until = NULL, updated_at = $2
			WHERE f.locked_until IS NULL OR f.locked_until <= $2`, c.PhoneKey, c.Now)
		if err != nil {
			return fmt.Errorf("ledger: clear link failures: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return ErrLinkCodeLocked
		}
		return nil
	}
	_, err := l.Execute(ctx, Call{WorkspaceID: personal, Metadata: meta, UserID: code.userID,
		DecideUser: link.DecideUser, claim: claim})
	return err
}

// countLinkFailure counts a wrong code from a phone; the fifth locks the phone out.
// Count and lock are one statement on the phone's row, so failures counted at once on
// several instances are each counted, and exactly one of them locks.
func (l *Ledger) countLinkFailure(ctx context.Context, phoneKey []byte, now time.Time) error {
	_, err := l.pool.Exec(ctx, `INSERT INTO whatsapp_link_failures AS f (phone_key, failures, updated_at) VALUES ($1, 1, $2)
		ON CONFLICT (phone_key) DO UPDATE SET
			failures = CASE
				WHEN f.locked_until IS NOT NULL AND f.locked_until <= $2 THEN 1
				WHEN f.failures + 1 >= $3 THEN 0
				ELSE f.failures + 1 END,
			locked_until = CASE
				WHEN f.locked_until IS NOT NULL AND f.locked_until <= $2 THEN NULL
				WHEN f.failures + 1 >= $3 THEN $4
				ELSE f.locked_until END,
			updated_at = $2`, phoneKey, now, linkFailuresBeforeLock, now.Add(linkLockDuration))
	if err != nil {
		return fmt.Errorf("ledger: count link failure: %w", err)
	}
	return nil
}
