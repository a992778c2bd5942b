package attachments_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/attachments"
	"github.com/finledger/finledger/attachments/storetest"
	"github.com/finledger/finledger/internal/testkit/s3server"
	"github.com/finledger/finledger/internal/testkit/testdb"
)

// s3Store returns a store of a bucket of a gateway of its own, and the gateway.
func s3Store(t *testing.T) (*attachments.S3, *s3server.Server) {
	t.Helper()
	server := s3server.Start(t)
	return newS3(t, testdb.Pool(t), server.Config()), server
}

func newS3(t *testing.T, pool *pgxpool.Pool, cfg attachments.S3Config) *attachments.S3 {
	t.Helper()
	store, err := attachments.NewS3(pool, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return store
}

func TestS3Store(t *testing.T) {
	storetest.Run(t, func(t *testing.T) attachments.Store {
		store, _ := s3Store(t)
		return store
	})
}

// Each way an object can be damaged in the bucket is reported: a byte changed, the
// object cut short, grown, or lost.
func TestS3Corruption(t *testing.T) {
	damages := map[string]func(path string) error{
		"ByteChanged": func(path string) error {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			data[100] ^= 0xff
			return os.WriteFile(path, data, 0o644)
		},
		"CutShort": func(path string) error { return os.Truncate(path, 1000) },
		"Grown": func(path string) error {
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			_, err = f.Write([]byte{0})
			return errors.Join(err, f.Close())
		},
		"Lost": os.Remove,
	}
	for name, damage := range damages {
		t.Run(name, func(t *testing.T) {
			store, server := s3Store(t)
			storetest.RunCorruption(t, store, func(t *testing.T, workspaceID uuid.UUID, sha256 string) {
				if err := damage(server.ObjectPath(workspaceID.String() + "/" + sha256)); err != nil {
					t.Fatalf("damage: %v", err)
				}
			})
		})
	}
}

// A gateway out of reach, or a bucket missing, is ErrUnavailable to every method, and
// the store serves again once the gateway is back.
func TestS3Unavailable(t *testing.T) {
	ctx, pool, server := context.Background(), testdb.Pool(t), s3server.Start(t)
	store := newS3(t, pool, server.Config())
	ws, u := uuid.New(), storetest.Spool(t, storetest.PDF(t, 1000))
	if err := store.Save(ctx, ws, u); err != nil {
		t.Fatal(err)
	}
	wantUnavailable := func(what string) {
		t.Helper()
		other := storetest.Spool(t, storetest.PDF(t, 2000))
		if err := store.Save(ctx, ws, other); !errors.Is(err, attachments.ErrUnavailable) {
			t.Errorf("%s: save: %v, want ErrUnavailable", what, err)
		}
		if c, err := store.Open(ctx, ws, u.SHA256); !errors.Is(err, attachments.ErrUnavailable) {
			if err == nil {
				c.Close()
			}
			t.Errorf("%s: open: %v, want ErrUnavailable", what, err)
		}
		if err := store.Check(ctx, ws, u.SHA256); !errors.Is(err, attachments.ErrUnavailable) {
			t.Errorf("%s: check: %v, want ErrUnavailable", what, err)
		}
		if err := store.Delete(ctx, ws, u.SHA256); !errors.Is(err, attachments.ErrUnavailable) {
			t.Errorf("%s: delete: %v, want ErrUnavailable", what, err)
		}
	}
	server.Stop()
	wantUnavailable("gateway stopped")
	server.Resume(t)
	if err := store.Check(ctx, ws, u.SHA256); err != nil {
		t.Fatalf("check once the gateway is back: %v", err)
	}

	cfg := server.Config()
	cfg.Bucket = "no-such-bucket"
	store = newS3(t, pool, cfg)
	wantUnavailable("bucket missing")
}

// A save of a content that a purge is deleting waits for the purge's end, then writes
// the object again: the row it leaves never names an object the purge removed.
func TestS3SaveWaitsForThePurge(t *testing.T) {
	ctx, pool, server := context.Background(), testdb.Pool(t), s3server.Start(t)
	store := newS3(t, pool, server.Config())
	ws, u := uuid.New(), storetest.Spool(t, storetest.PDF(t, 1000))
	if err := store.Save(ctx, ws, u); err != nil {
		t.Fatal(err)
	}
	// The purge's part: the row locked and deleted, the object removed, not yet committed.
	purge, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer purge.Rollback(ctx) //nolint:errcheck // committed below
	if _, err := purge.Exec(ctx, `DELETE FROM attachment_contents WHERE workspace_id = $1 AND sha256 = $2`, ws, u.SHA256); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(server.ObjectPath(ws.String() + "/" + u.SHA256)); err != nil {
		t.Fatal(err)
	}
	saved := make(chan error, 1)
	go func() { saved <- store.Save(ctx, ws, u) }()
	select {
	case err := <-saved:
		t.Fatalf("the save ended while the purge held the row: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := purge.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-saved; err != nil {
		t.Fatal(err)
	}
	if err := store.Check(ctx, ws, u.SHA256); err != nil {
		t.Fatalf("after the purge and the save: %v", err)
	}
}
