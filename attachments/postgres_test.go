package attachments_test

import (
	"context"
	"io"
	"os"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/attachments"
	"github.com/finledger/finledger/attachments/storetest"
	"github.com/finledger/finledger/internal/testkit/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

func TestPostgresStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) attachments.Store { return attachments.NewPostgres(testdb.Pool(t)) })
}

// Each way a stored content can be damaged is reported: a byte changed, a chunk lost, a
// chunk cut short, a chunk grown.
func TestPostgresCorruption(t *testing.T) {
	damages := map[string]string{
		"ByteChanged": `UPDATE attachment_chunks SET data = set_byte(data, 100, 255 - get_byte(data, 100))
			WHERE workspace_id = $1 AND sha256 = $2 AND n = 0`,
		"ChunkLost": `DELETE FROM attachment_chunks WHERE workspace_id = $1 AND sha256 = $2 AND n = 1`,
		"ChunkCutShort": `UPDATE attachment_chunks SET data = substring(data FROM 1 FOR 1000)
			WHERE workspace_id = $1 AND sha256 = $2 AND n = 1`,
		"LastChunkGrown": `UPDATE attachment_chunks SET data = data || '\x00'::bytea
			WHERE workspace_id = $1 AND sha256 = $2
				AND n = (SELECT max(n) FROM attachment_chunks WHERE workspace_id = $1 AND sha256 = $2)`,
	}
	for name, damage := range damages {
		t.Run(name, func(t *testing.T) {
			pool := testdb.Pool(t)
			storetest.RunCorruption(t, attachments.NewPostgres(pool), func(t *testing.T, workspaceID uuid.UUID, sha256 string) {
				tag, err := pool.Exec(context.Background(), damage, workspaceID, sha256)
				if err != nil || tag.RowsAffected() != 1 {
					t.Fatalf("damage: %v, %d rows", err, tag.RowsAffected())
				}
			})
		})
	}
}

// A content is kept in chunks of 256 KiB, numbered from 0, the last holding the rest.
func TestPostgresChunks(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	ws, u := uuid.New(), storetest.Spool(t, storetest.PDF(t, 600<<10))
	if err := attachments.NewPostgres(pool).Save(ctx, ws, u); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT length(data) FROM attachment_chunks WHERE workspace_id = $1 AND sha256 = $2 ORDER BY n`,
		ws, u.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	lengths, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{256 << 10, 256 << 10, 88 << 10}; !slices.Equal(lengths, want) {
		t.Fatalf("chunks of %v bytes, want %v", lengths, want)
	}
}

// A download being read holds no connection of the pool between its chunks, however
// long its reader waits.
func TestPostgresDownloadHoldsNoConnection(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	store := attachments.NewPostgres(pool)
	ws, data := uuid.New(), storetest.PDF(t, 600<<10)
	u := storetest.Spool(t, data)
	if err := store.Save(ctx, ws, u); err != nil {
		t.Fatal(err)
	}
	c, err := store.Open(ctx, ws, u.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	first := make([]byte, 300<<10) // past the first chunk, into the second
	if _, err := io.ReadFull(c, first); err != nil {
		t.Fatal(err)
	}
	if held := pool.Stat().AcquiredConns(); held != 0 {
		t.Fatalf("%d connections held while the download waits", held)
	}
	rest, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := append(first, rest...); !slices.Equal(got, data) {
		t.Fatalf("read %d bytes unlike the %d saved", len(got), len(data))
	}
}
