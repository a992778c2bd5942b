package bus

import (
	"context"
	"errors"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

// A request the cluster leaves unanswered, or answers with "cluster not available", is
// sent again; any other answer, or the caller's deadline, ends the asking.
func TestAskClusterAsksAgainWhileUnanswered(t *testing.T) {
	t.Parallel()
	notAvailable := &jetstream.APIError{Code: 503, ErrorCode: errCodeClusterNotAvailable, Description: "JetStream system temporarily unavailable"}
	cases := []struct {
		name    string
		answers []error // what each request gets; nil leaves it unanswered
		want    error
		asks    int
	}{
		{"unanswered, then not found", []error{nil, jetstream.ErrStreamNotFound}, jetstream.ErrStreamNotFound, 2},
		{"not available, then found", []error{notAvailable, errFound}, errFound, 2},
		{"not found at once", []error{jetstream.ErrStreamNotFound}, jetstream.ErrStreamNotFound, 1},
		{"never answered", []error{nil, nil, nil}, context.DeadlineExceeded, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), clusterAnswerWait+clusterAnswerWait/2)
			defer cancel()
			asks := 0
			_, err := askCluster(ctx, func(ctx context.Context) (jetstream.Stream, error) {
				answer := c.answers[asks]
				asks++
				if answer == nil {
					<-ctx.Done()
					return nil, ctx.Err()
				}
				return nil, answer
			})
			if !errors.Is(err, c.want) || asks != c.asks {
				t.Fatalf("asked %d times, got %v; want %d times, %v", asks, err, c.asks, c.want)
			}
		})
	}
}

// errFound stands for an answer that carries the stream.
var errFound = errors.New("found")
