package ledger

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
)

// apiKeyLockClass is the first key of the transaction advisory locks that serialise the
// creations of one person's keys; two-key advisory locks never meet the one-key locks
// of leaders and migrations.
const apiKeyLockClass int32 = 0x616b6579 // "akey"

// BindAPIKey returns what makes a call create the key c: it decides with c, and first,
// in the call's transaction, locks the creator's keys and counts the live ones, so that
// creations on any instances, in any workspaces, cannot pass domain.MaxLiveAPIKeys
// together. A replay by Idempotency-Key counts too but does not decide again.
func BindAPIKey(c *domain.CreateAPIKey) func(Call) Call {
	return func(call Call) Call {
		call.Decide = c.Decide
		call.claim = func(ctx context.Context, tx pgx.Tx) error {
			b := &pgx.Batch{}
			b.Queue(`SELECT pg_advisory_xact_lock($1, $2)`, apiKeyLockClass, int32(binary.BigEndian.Uint32(c.CreatedBy[:4])))
			b.Queue(`SELECT count(*) FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id AND w.deleted_at IS NULL
			WHERE k.created_by = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $2)`,
				c.CreatedBy, c.Now).QueryRow(func(row pgx.Row) error { return row.Scan(&c.LiveKeys) })
			if err := tx.SendBatch(ctx, b).Close(); err != nil {
				return fmt.Errorf("ledger: count the creator's API keys: %w", err)
			}
			return nil
		}
		return call
	}
}
