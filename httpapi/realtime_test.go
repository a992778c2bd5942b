package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/finledger/finledger/internal/apitest"
)

// sseEvent is one event of a Server-Sent Events stream.
type sseEvent struct {
	ID, Event string
	Data      map[string]any
}

// openStream connects to the realtime stream and returns its events as they come.
func openStream(t *testing.T, url, lastEventID string) (<-chan sseEvent, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := make(chan sseEvent, 100)
	go func() {
		defer close(events)
		defer resp.Body.Close()
		scan := bufio.NewScanner(resp.Body)
		var e sseEvent
		for scan.Scan() {
			line := scan.Text()
			switch {
			case line == "":
				if e.Event != "" {
					events <- e
				}
				e = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				e.ID = line[4:]
			case strings.HasPrefix(line, "event: "):
				e.Event = line[7:]
			case strings.HasPrefix(line, "data: "):
				if err := json.Unmarshal([]byte(line[6:]), &e.Data); err != nil {
					t.Errorf("data %s: %v", line, err)
				}
			}
		}
	}()
	return events, cancel
}

// next returns the next event of a stream, failing after a while.
func next(t *testing.T, events <-chan sseEvent) sseEvent {
	t.Helper()
	select {
	case e, ok := <-events:
		if !ok {
			t.Fatal("the stream ended")
		}
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10 s")
	}
	return sseEvent{}
}

func TestRealtimeStream(t *testing.T) {
	env, ev := apitest.StartEvents(t, nil)
	ev.Run()
	alice, bob := env.As("alice"), env.As("bob")
	cashWallet(t, alice)
	cashWallet(t, bob)
	token := func() string {
		r := alice.Post("/api/realtime/token", nil).Expect(t, http.StatusOK)
		return r.JSON["url"].(string)
	}
	record := func(c *apitest.Client, concept string) string {
		return c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 4, "concept": concept}).
			Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	}

	// Live: what is written after connecting arrives, other workspaces' events do not.
	events, closeStream := openStream(t, env.URL+token(), "")
	record(bob, "bob's")
	first := record(alice, "first")
	e := next(t, events)
	if e.Event != "transaction.created" || e.Data["data"].(map[string]any)["transactionId"] != first || e.Data["type"] != "transaction.created" {
		t.Fatalf("event %+v", e)
	}
	closeStream()

	// Resume: what was missed comes first, from the store, then the live feed.
	second, third := record(alice, "second"), record(alice, "third")
	events, closeStream = openStream(t, env.URL+token(), e.ID)
	defer closeStream()
	for _, want := range []string{second, third} {
		got := next(t, events)
		if got.Data["data"].(map[string]any)["transactionId"] != want {
			t.Fatalf("resumed with %+v, want %s", got, want)
		}
	}
	fourth := record(alice, "fourth")
	if got := next(t, events); got.Data["data"].(map[string]any)["transactionId"] != fourth {
		t.Fatalf("live after resume %+v", got)
	}

	// An id from the future (another stream's, say) gets a reset to the head, then the live feed.
	closeStream()
	events, closeStream = openStream(t, env.URL+token(), "999999")
	defer closeStream()
	reset := next(t, events)
	if reset.Event != "reset" || reset.ID == "" || fmt.Sprint(reset.Data["lastEventId"]) != reset.ID {
		t.Fatalf("reset %+v", reset)
	}
	fifth := record(alice, "fifth")
	if got := next(t, events); got.Data["data"].(map[string]any)["transactionId"] != fifth {
		t.Fatalf("live after reset %+v", got)
	}

	// Tokens: for sessions only, short-lived, not forgeable.
	key, _ := newKey(t, alice, "*")
	expectError(t, key.Post("/api/realtime/token", nil), http.StatusForbidden, "FORBIDDEN")
	stale := token()
	anon := env.Anonymous()
	for _, path := range []string{"/api/realtime/events", "/api/realtime/events?token=abc", stale[:len(stale)-2] + "xx"} {
		expectError(t, anon.Get(path), http.StatusUnauthorized, "UNAUTHORIZED")
	}
	env.Clock.Set(env.Clock.Now().Add(6 * time.Minute))
	expectError(t, anon.Get(stale), http.StatusUnauthorized, "UNAUTHORIZED")
	expectError(t, anon.Get(token()+"&lastEventId=x"), http.StatusBadRequest, "VALIDATION_ERROR")
}
