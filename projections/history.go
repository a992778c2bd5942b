package projections

import (
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
)

// historyOf names the history table of each read model whose every state is kept,
// stamped with the version of the event that made it: the as-of views read them
// (migration 0019). A history table's columns are the version and then its table's.
var historyOf = map[string]string{
	"wallets":    "wallet_versions",
	"categories": "category_versions",
	"budgets":    "budget_versions",
	"goals":      "goal_versions",
	"debts":      "debt_versions",
}

// historyTables are the read models' past: the record histories, the rows that
// transactions' corrections and deletions replaced, and the daily and monthly totals
// each event left (migrations 0020 and 0022).
var historyTables = []string{"wallet_versions", "category_versions", "budget_versions", "goal_versions", "debt_versions",
	"transaction_versions", "daily_total_versions", "monthly_total_versions"}

// startedHistory narrows a history table to the workspaces whose history is whole: a
// workspace written before the histories were kept has them from a later version
// (history_starts) until a replay rebuilds them from its first event.
const startedHistory = "workspace_id NOT IN (SELECT workspace_id FROM history_starts)"

// queueVersion keeps, in its table's history, the state a record's row has after the
// event of the given version. An event changes a record's row in one statement, which
// this follows.
func queueVersion(b *pgx.Batch, table string, ws, id uuid.UUID, version int64) {
	b.Queue(`INSERT INTO `+historyOf[table]+` SELECT $3::bigint, r.* FROM `+table+` r WHERE r.workspace_id = $1 AND r.id = $2`,
		ws, id, version)
}

// replacedSQL keeps the rows of transactions $2 of workspaces $1, before the events of
// versions $3 replace them, stamped with those versions: one element per row.
const replacedSQL = `INSERT INTO transaction_versions SELECT r.version, t.*
	FROM unnest($1::uuid[], $2::uuid[], $3::bigint[]) AS r(workspace_id, id, version)
	JOIN transactions t ON t.workspace_id = r.workspace_id AND t.id = r.id`

// queueReplaced keeps a transaction's row, before the correction or deletion of the
// given version replaces it, and stamps the row with that version.
func queueReplaced(b *pgx.Batch, ws, transactionID uuid.UUID, version int64) {
	b.Queue(replacedSQL, []uuid.UUID{ws}, []uuid.UUID{transactionID}, []int64{version})
}

// effectsByRecord sums a transaction event's goal and debt effects per goal and per
// debt, in the order they first appear, so that each record's row changes once per
// event.
func effectsByRecord(effects *domain.Effects) (goals, debts []recordMove) {
	return movesOf(effects.Goals, func(p domain.GoalPosting) (uuid.UUID, decimal.Decimal) { return p.GoalID, p.Amount }),
		movesOf(effects.Debts, func(p domain.DebtPosting) (uuid.UUID, decimal.Decimal) { return p.DebtID, p.Amount })
}

// recordMove is what an event moves a record's amount by.
type recordMove struct {
	id     uuid.UUID
	amount decimal.Decimal
}

func movesOf[T any](effects []T, of func(T) (uuid.UUID, decimal.Decimal)) []recordMove {
	var out []recordMove
	for _, e := range effects {
		id, amount := of(e)
		found := false
		for i := range out {
			if out[i].id == id {
				out[i].amount, found = out[i].amount.Add(amount), true
			}
		}
		if !found {
			out = append(out, recordMove{id, amount})
		}
	}
	return out
}
