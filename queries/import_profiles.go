package queries

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// ImportProfile is a saved CSV import profile: which column of a bank's CSV holds what.
type ImportProfile struct {
	ID        uuid.UUID     `json:"id"`
	Name      string        `json:"name"`
	WalletID  *uuid.UUID    `json:"walletId"`
	Mapping   ImportMapping `json:"mapping"`
	CreatedAt time.Time     `json:"createdAt"`
	UpdatedAt time.Time     `json:"updatedAt"`
}

// ImportMapping is a profile's mapping as the API shows it: every field, a column
// counted from 1 (0 for none), an option "" when it is found from the file. Its fields
// are domain.ImportMapping's, so that one converts to the other as it is
// (domain.ImportMapping(p.Mapping)), as an import with a saved profile does.
type ImportMapping struct {
	Date             int    `json:"date"`
	ValueDate        int    `json:"valueDate"`
	Amount           int    `json:"amount"`
	Debit            int    `json:"debit"`
	Credit           int    `json:"credit"`
	Payee            int    `json:"payee"`
	Memo             int    `json:"memo"`
	ExternalID       int    `json:"externalId"`
	Currency         int    `json:"currency"`
	Description      int    `json:"description"`
	DateOrder        string `json:"dateOrder"`
	DecimalSeparator string `json:"decimalSeparator"`
	Delimiter        string `json:"delimiter"`
	Encoding         string `json:"encoding"`
	Header           string `json:"header"`
}

const importProfileColumns = `id, name, wallet_id, mapping, created_at, updated_at`

func scanImportProfile(row pgx.CollectableRow) (ImportProfile, error) {
	var p ImportProfile
	var mapping []byte
	if err := row.Scan(&p.ID, &p.Name, &p.WalletID, &mapping, &p.CreatedAt, &p.UpdatedAt); err != nil {
		return p, err
	}
	if err := json.Unmarshal(mapping, &p.Mapping); err != nil {
		return p, fmt.Errorf("the mapping of import profile %s: %w", p.ID, err)
	}
	return p, nil
}

// ImportProfiles lists a workspace's import profiles, oldest first; given a wallet,
// only those for that wallet.
func ImportProfiles(ctx context.Context, db DB, workspaceID uuid.UUID, walletID *uuid.UUID) ([]ImportProfile, error) {
	rows, err := db.Query(ctx, `SELECT `+importProfileColumns+` FROM import_profiles
		WHERE workspace_id = $1 AND ($2::uuid IS NULL OR wallet_id = $2) ORDER BY created_version`, workspaceID, walletID)
	if err != nil {
		return nil, fmt.Errorf("queries: import profiles: %w", err)
	}
	return all(rows, scanImportProfile, "import profiles")
}

// ImportProfileByID looks up one import profile.
func ImportProfileByID(workspaceID, id uuid.UUID) Lookup[ImportProfile] {
	return Lookup[ImportProfile]{"import profile", `SELECT ` + importProfileColumns + ` FROM import_profiles WHERE workspace_id = $1 AND id = $2`,
		[]any{workspaceID, id}, scanImportProfile}
}
