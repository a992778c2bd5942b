package attachments

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Config says where an S3 store's bucket is, and how to sign in to it.
type S3Config struct {
	// Endpoint is the service's URL, such as https://s3.eu-west-1.amazonaws.com or
	// http://127.0.0.1:7070: its scheme says whether the requests go over TLS.
	Endpoint string
	// Bucket is the bucket the contents are kept in; it must exist.
	Bucket string
	// AccessKey and SecretKey are the credentials requests are signed with.
	AccessKey, SecretKey string
	// Region is the bucket's region; "": asked of the service once.
	Region string
}

// s3Retries is how many times the client tries a request that fails for want of an
// answer: an upload or a download then waits a second or so for an endpoint that is
// down before it is answered 503, where the client's default (10) waited far longer.
const s3Retries = 3

// S3 is the Store of an S3-compatible bucket: a content's bytes are one object, named
// <workspace id>/<sha256>. The content's row in attachment_contents (its size, its kind,
// when it was saved) is written as Postgres writes it, so that the purge, verify and the
// export find every content by SQL whichever store holds its bytes, and Open knows a
// content's size and kind before its first byte.
//
// A content's row is locked while its object is written or removed: a save waits for a
// purge or a delete of the same content to end, and then writes the object again, so
// that no row outlives its object.
type S3 struct {
	pool   *pgxpool.Pool
	client *minio.Client
	bucket string
}

var _ Store = (*S3)(nil)

// NewS3 returns the Store of the bucket cfg names, its contents' rows in the database
// pool connects to. It sends no request: an endpoint out of reach or a bucket missing is
// told by the first save or download, as ErrUnavailable.
func NewS3(pool *pgxpool.Pool, cfg S3Config) (*S3, error) {
	u, err := ParseS3Endpoint(cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	client, err := minio.New(u.Host, &minio.Options{
		Creds:      credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure:     u.Scheme == "https",
		Region:     cfg.Region,
		MaxRetries: s3Retries,
	})
	if err != nil {
		return nil, fmt.Errorf("attachments: S3 client of %s: %w", u.Host, err)
	}
	return &S3{pool: pool, client: client, bucket: cfg.Bucket}, nil
}

// ParseS3Endpoint reads an S3 endpoint: an http or https URL with no path, since the
// bucket's name is not part of it.
func ParseS3Endpoint(endpoint string) (*url.URL, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") ||
		u.User != nil || u.RawQuery != "" {
		return nil, fmt.Errorf("attachments: the S3 endpoint %q is not an http(s) URL without a path, such as https://s3.example.com", endpoint)
	}
	return u, nil
}

// objectName is a content's object in the bucket.
func objectName(workspaceID uuid.UUID, sha256Hex string) string {
	return workspaceID.String() + "/" + sha256Hex
}

// Save writes the content's row, then, unless the bucket holds its object already, its
// object, streamed from the spooled file with its size known, and commits the row once
// the object is written. Saves of one content at once on several instances take turns
// on its row; the later ones find the object written.
func (s *S3) Save(ctx context.Context, workspaceID uuid.UUID, u *Upload) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := saveRow(ctx, tx, workspaceID, u); err != nil {
			return err
		}
		return s.put(ctx, workspaceID, u)
	})
	if err != nil {
		return fmt.Errorf("attachments: save %s: %w", u.SHA256, err)
	}
	return nil
}

// put writes the upload's object unless one of its size is there. The bytes sent are
// hashed again as they go; an object whose bytes are not the upload's size and hash is
// removed, and the save fails with ErrCorrupt.
func (s *S3) put(ctx context.Context, workspaceID uuid.UUID, u *Upload) error {
	name := objectName(workspaceID, u.SHA256)
	info, err := s.client.StatObject(ctx, s.bucket, name, minio.StatObjectOptions{})
	switch {
	case err == nil && info.Size == u.Size:
		return nil
	case err != nil && s3Code(err) != "NoSuchKey":
		return s3Error("look for the object", err)
	}
	hash := sha256.New()
	// One PUT streams the file, whose size is known: a multipart upload would hold a
	// part of 16 MiB in memory.
	_, err = s.client.PutObject(ctx, s.bucket, name, io.TeeReader(u.whole(), hash), u.Size,
		minio.PutObjectOptions{ContentType: u.Kind.MIME(), DisableMultipart: true})
	if err != nil {
		return s3Error("write the object", err)
	}
	if got := hex.EncodeToString(hash.Sum(nil)); got != u.SHA256 {
		if err := s.client.RemoveObject(ctx, s.bucket, name, minio.RemoveObjectOptions{}); err != nil {
			return s3Error("remove the object written wrong", err)
		}
		return fmt.Errorf("the file reads as %d bytes hashing to %s: %w", u.Size, got, ErrCorrupt)
	}
	return nil
}

// Open reads the content's size and kind from its row, and starts the download of its
// object, whose body the Content reads as it goes.
func (s *S3) Open(ctx context.Context, workspaceID uuid.UUID, sha256Hex string) (*Content, error) {
	size, kind, err := storedRow(ctx, s.pool, workspaceID, sha256Hex)
	if err != nil {
		return nil, err
	}
	obj, err := s.client.GetObject(ctx, s.bucket, objectName(workspaceID, sha256Hex), minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("attachments: open %s: %w", sha256Hex, s3Error("read the object", err))
	}
	// Stat sends the GET itself: its answer's body is what the Content reads.
	if _, err := obj.Stat(); err != nil {
		obj.Close()
		if s3Code(err) == "NoSuchKey" {
			return nil, s.missing(ctx, workspaceID, sha256Hex)
		}
		return nil, fmt.Errorf("attachments: open %s: %w", sha256Hex, s3Error("read the object", err))
	}
	return newContent(workspaceID, sha256Hex, size, kind, obj), nil
}

// missing tells why a content's object is absent: the content was deleted since its row
// was read, or the object is lost.
func (s *S3) missing(ctx context.Context, workspaceID uuid.UUID, sha256Hex string) error {
	if _, _, err := storedRow(ctx, s.pool, workspaceID, sha256Hex); err != nil {
		return err
	}
	return fmt.Errorf("attachments: the object of content %s of workspace %s is missing from the bucket: %w",
		sha256Hex, workspaceID, ErrCorrupt)
}

// Check downloads the content through Open and hashes it.
func (s *S3) Check(ctx context.Context, workspaceID uuid.UUID, sha256Hex string) error {
	return check(ctx, s, workspaceID, sha256Hex)
}

// Delete removes the content's row and its object, in the transaction that deletes the
// row: should the object stay, so does the row.
func (s *S3) Delete(ctx context.Context, workspaceID uuid.UUID, sha256Hex string) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := deleteRow(ctx, tx, workspaceID, sha256Hex); err != nil {
			return err
		}
		return s.remove(ctx, workspaceID, sha256Hex)
	})
	if err != nil {
		return fmt.Errorf("attachments: delete %s: %w", sha256Hex, err)
	}
	return nil
}

// remove removes a content's object; one absent is no error (S3's DELETE says so).
func (s *S3) remove(ctx context.Context, workspaceID uuid.UUID, sha256Hex string) error {
	if err := s.client.RemoveObject(ctx, s.bucket, objectName(workspaceID, sha256Hex), minio.RemoveObjectOptions{}); err != nil {
		return s3Error("remove the object", err)
	}
	return nil
}

// Purge deletes the contents no attachment keeps (the rule is purge's), each object
// before its row.
func (s *S3) Purge(ctx context.Context, now time.Time) (int64, error) {
	return purge(ctx, s.pool, now, s.remove)
}

// s3Code is the code of the bucket's answer err carries (NoSuchKey, NoSuchBucket, ...),
// or "".
func s3Code(err error) string {
	var answer minio.ErrorResponse
	if errors.As(err, &answer) {
		return answer.Code
	}
	return ""
}

// s3Error wraps an error of the bucket, with ErrUnavailable too when the storage could
// not serve rather than refused the request: no answer (the endpoint unreachable), no
// bucket, or an error of the server's own (5xx), all of which a retry later may cure.
func s3Error(op string, err error) error {
	var netErr net.Error
	var answer minio.ErrorResponse
	if errors.As(err, &netErr) ||
		errors.As(err, &answer) && (answer.Code == "NoSuchBucket" || answer.StatusCode >= http.StatusInternalServerError) {
		return fmt.Errorf("%s: %w: %w", op, ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}
