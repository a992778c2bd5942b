package attachments_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/attachments"
	"github.com/finledger/finledger/attachments/storetest"
	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/internal/testkit/s3server"
	"github.com/finledger/finledger/internal/testkit/testdb"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/projections"
)

// The purge forgets the contents no attachment keeps, and only those: a content never
// named (its command refused) once a day old, and one whose attachments were all hidden
// (taken off, or their transaction deleted) over the retention ago. A content shown by a
// live attachment stays however old; so does one hidden more recently, and one saved
// again since a day, which an attachment is about to name. Whichever store holds the
// bytes, the rule is the same; a bucket's objects go with their contents.
func TestPurgeKeepsWhatAnAttachmentShows(t *testing.T) {
	t.Run("Postgres", func(t *testing.T) {
		pool := testdb.Pool(t)
		purgeKeepsWhatAnAttachmentShows(t, pool, attachments.NewPostgres(pool), nil)
	})
	t.Run("S3", func(t *testing.T) {
		pool, server := testdb.Pool(t), s3server.Start(t)
		purgeKeepsWhatAnAttachmentShows(t, pool, newS3(t, pool, server.Config()), func(ws uuid.UUID, sha256 string) bool {
			_, err := os.Stat(server.ObjectPath(ws.String() + "/" + sha256))
			return err == nil
		})
	})
}

// purgeKeepsWhatAnAttachmentShows runs the purge's test on a store of pool; inBucket,
// unless nil, tells whether a content's object is in the store's bucket.
func purgeKeepsWhatAnAttachmentShows(t *testing.T, pool *pgxpool.Pool, store interface {
	attachments.Store
	Purge(context.Context, time.Time) (int64, error)
}, inBucket func(uuid.UUID, string) bool) {
	ctx := context.Background()
	l := ledger.NewLedger(pool, projections.Project, time.Now, 10)
	user, err := l.RegisterUser(ctx, domain.Identity{Subject: "purge", Email: "purge@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	ws, wallet := domain.PersonalWorkspaceID(user), uuid.New()
	run := func(decide func(*domain.Workspace) ([]domain.Event, error)) {
		t.Helper()
		if _, err := l.Execute(ctx, ledger.Call{WorkspaceID: ws, Metadata: ledger.Metadata{ActorType: ledger.ActorSystem, ActorID: "test"},
			Decide: decide}); err != nil {
			t.Fatal(err)
		}
	}
	run(domain.CreateWallet{WalletID: wallet, WalletFields: domain.WalletFields{Name: "Main", Type: "cash", Currency: "MXN",
		CardColor: "#111827", InitialBalance: decimal.New(100, 0), IsDefault: true}}.Decide)
	files := map[string]*attachments.Upload{}
	for i, name := range []string{"shown", "unnamed", "removed long ago", "removed lately", "deleted long ago", "saved again"} {
		u := storetest.Spool(t, storetest.PDF(t, 1000+i))
		if err := store.Save(ctx, ws, u); err != nil {
			t.Fatal(err)
		}
		files[name] = u
		if name == "unnamed" || name == "saved again" {
			continue
		}
		tx, attachment := uuid.New(), uuid.New()
		run(domain.CreateTransaction{TransactionID: tx, Type: domain.TxExpense, Amount: decimal.New(1, 0),
			Date: domain.MustParseDate("2026-03-01"), WalletID: &wallet}.Decide)
		run(domain.AttachFile{AttachmentID: attachment, TransactionID: tx, SHA256: u.SHA256, Size: u.Size, ContentType: u.Kind.MIME()}.Decide)
		switch name {
		case "removed long ago", "removed lately":
			run(domain.DetachFile{AttachmentID: attachment, TransactionID: tx}.Decide)
		case "deleted long ago":
			run(domain.DeleteTransaction{TransactionID: tx}.Decide)
		}
	}
	// Every content was saved two days ago; the hidden ones long ago are hidden since
	// the retention and a day; the one saved again is saved again now.
	for _, q := range []string{
		`UPDATE attachment_contents SET created_at = now() - interval '2 days'`,
		`UPDATE attachments SET removed_at = now() - interval '31 days' WHERE sha256 = '` + files["removed long ago"].SHA256 + `'`,
		`UPDATE transactions SET deleted_at = now() - interval '31 days' WHERE id = (SELECT transaction_id FROM attachments WHERE sha256 = '` +
			files["deleted long ago"].SHA256 + `')`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.Save(ctx, ws, files["saved again"]); err != nil {
		t.Fatal(err)
	}
	purged, err := store.Purge(ctx, time.Now())
	if err != nil || purged != 3 {
		t.Fatalf("purged %d (%v), want 3", purged, err)
	}
	for name, u := range files {
		content, err := store.Open(ctx, ws, u.SHA256)
		if err == nil {
			content.Close()
		}
		gone := errors.Is(err, attachments.ErrNotFound)
		want := name == "unnamed" || name == "removed long ago" || name == "deleted long ago"
		if gone != want {
			t.Errorf("%s: purged %v, want %v (%v)", name, gone, want, err)
		}
		if inBucket != nil && inBucket(ws, u.SHA256) == want {
			t.Errorf("%s: object in the bucket %v, want %v", name, !want, want)
		}
	}
}
