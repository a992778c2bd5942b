package imports

import (
	"testing"

	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
)

// The transactions of one import are named by its time first: they share the import's
// first 48 bits, are UUIDs of version 8 and RFC 9562's variant, differ from row to row,
// and are the same for the same row every time.
func TestAnImportsTransactionsLieTogether(t *testing.T) {
	imp := uuid.Must(uuid.NewV7())
	seen := map[uuid.UUID]bool{}
	for i := range 10_000 {
		id := CreatedTransaction(imp, i)
		switch {
		case [6]byte(id[:6]) != [6]byte(imp[:6]):
			t.Fatalf("row %d is named %s, outside import %s's time", i, id, imp)
		case id.Version() != 8 || id.Variant() != uuid.RFC4122:
			t.Fatalf("row %d is named %s: version %d, variant %v", i, id, id.Version(), id.Variant())
		case seen[id]:
			t.Fatalf("rows share the name %s", id)
		case CreatedTransaction(imp, i) != id:
			t.Fatalf("row %d is named twice differently", i)
		}
		seen[id] = true
	}
}

// An import committed before its transactions were named by its time keeps their names:
// a row's transaction is still found by the name-based UUID of the import and the row,
// as those commits made it; the commits since name it by the time.
func TestAnImportCommittedBeforeKeepsItsNames(t *testing.T) {
	imp := uuid.MustParse("01a230f8-5989-770d-8d8e-52393b61a5fc")
	row := Row{Index: 2, Decision: domain.ImportDecisionImport}
	if got := row.committedAs(imp, namedByHash); got == nil || got.String() != "fd05c969-43b3-5183-8b12-476442ca69ee" {
		t.Fatalf("an import named by the hash finds its third row's transaction at %v", got)
	}
	if got := row.committedAs(imp, namedByTime); got == nil || *got != CreatedTransaction(imp, 2) {
		t.Fatalf("an import named by the time finds its third row's transaction at %v", got)
	}
}
