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

	"github.com/finledger/finledger/httpapi"
	"github.com/finledger/finledger/internal/testkit/apitest"
)

// sseEvent is one event of a Server-Sent Events stream.
type sseEvent struct {
	ID, Event string
	Data      map[string]any
}

// dialStream requests the realtime stream; the caller reads or refuses the answer and
// cancels the request when done.
func dialStream(url, lastEventID string) (*http.Response, context.CancelFunc, error) {
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	return resp, cancel, nil
}

// openStream connects to the realtime stream and returns its events as they come.
func openStream(t *testing.T, url, lastEventID string) (<-chan sseEvent, func()) {
	t.Helper()
	resp, cancel, err := dialStream(url, lastEventID)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		cancel()
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

// expectRevoked waits, within the contract's bound, for a stream's revoked event with
// reason, and for the stream to end right after it.
func expectRevoked(t *testing.T, events <-chan sseEvent, reason string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatalf("the stream ended without a revoked event (want %s)", reason)
			}
			if e.Event != "revoked" {
				continue // sent before the loss of access was seen
			}
			if e.Data["reason"] != reason {
				t.Fatalf("revoked %+v, want reason %s", e, reason)
			}
			select {
			case e, ok := <-events:
				if ok {
					t.Fatalf("event after revoked: %+v", e)
				}
			case <-time.After(2 * time.Second):
				t.Fatal("the stream stayed open after its revoked event")
			}
			return
		case <-deadline:
			t.Fatalf("no revoked event (%s) within 5 s", reason)
		}
	}
}

// expectEnd waits for a stream to end.
func expectEnd(t *testing.T, events <-chan sseEvent) {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-events:
			if !ok {
				return
			}
		case <-timeout:
			t.Fatal("the stream did not end within 5 s")
		}
	}
}

// streamOpens tries to open a stream and reports whether it opened; an open one stays
// open until the test ends.
func streamOpens(t *testing.T, url string) bool {
	t.Helper()
	resp, cancel, err := dialStream(url, "")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		cancel()
		_ = resp.Body.Close()
		return false
	}
	t.Cleanup(cancel)
	return true
}

// streamRefused expects the stream to be refused with status and code, and returns the
// refusal's headers and error details.
func streamRefused(t *testing.T, url string, status int, code string) (http.Header, map[string]any) {
	t.Helper()
	resp, cancel, err := dialStream(url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	defer resp.Body.Close()
	var body struct {
		Error struct {
			Code    string
			Details map[string]any
		} `json:"error"`
	}
	if resp.StatusCode != status || json.NewDecoder(resp.Body).Decode(&body) != nil || body.Error.Code != code {
		t.Fatalf("stream answered %d %s, want %d %s", resp.StatusCode, body.Error.Code, status, code)
	}
	return resp.Header, body.Error.Details
}

// Streams open on instance B end, with a revoked event, when their user loses access
// through instance A: removal from the team, account deletion, workspace deletion.
func TestRealtimeStreamEndsWhenAccessEnds(t *testing.T) {
	env, ev := apitest.StartEvents(t, nil)
	ev.Run()
	b := env.Instance()
	// An instance that checks its streams only once a minute still ends a removed
	// member's stream at once: the member.removed event on the workspace's subject
	// has it check then.
	slow := env.InstanceWith(func(o *httpapi.Options) {
		o.Realtime = httpapi.RealtimeOptions{CheckInterval: time.Minute, Lease: 5 * time.Minute}
	})
	alice := env.As("alice")
	ws := alice.Post("/api/workspaces", map[string]any{"name": "Acme", "currency": "mxn"}).Expect(t, http.StatusOK).Object("workspace")["id"].(string)
	members := "/api/workspaces/" + ws + "/members"
	in := func(c *apitest.Client) *apitest.Client { return c.With("X-Workspace-Id", ws) }
	ids := map[string]string{}
	for _, name := range []string{"bob", "carol", "dave"} {
		env.As(name).Get("/api/me").Expect(t, http.StatusOK)
		ids[name] = alice.Post(members, map[string]any{"email": name + "@example.com", "role": "reader"}).
			Expect(t, http.StatusOK).Object("member")["userId"].(string)
	}
	cashWallet(t, in(alice))
	// Each opens a stream of the team workspace on instance B (carol on the slow one),
	// with a token asked of instance A.
	url := func(c *apitest.Client, on *apitest.Env) string {
		return on.URL + in(c).Post("/api/realtime/token", nil).Expect(t, http.StatusOK).JSON["url"].(string)
	}
	bobURL, carolURL, daveURL := url(env.As("bob"), b), url(env.As("carol"), slow), url(env.As("dave"), b)
	aliceStream, closeAlice := openStream(t, url(alice, b), "")
	defer closeAlice()
	bobStream, closeBob := openStream(t, bobURL, "")
	defer closeBob()
	carolStream, closeCarol := openStream(t, carolURL, "")
	defer closeCarol()
	daveStream, closeDave := openStream(t, daveURL, "")
	defer closeDave()

	alice.Delete(members+"/"+ids["bob"]).Expect(t, http.StatusOK)
	expectRevoked(t, bobStream, "member_removed")
	alice.Delete(members+"/"+ids["carol"]).Expect(t, http.StatusOK)
	expectRevoked(t, carolStream, "member_removed")
	env.As("dave").Delete("/api/me").Expect(t, http.StatusOK)
	expectRevoked(t, daveStream, "account_deleted")
	// Their tokens, still within their five minutes, open nothing any more.
	for url, reason := range map[string]string{bobURL: "member_removed", daveURL: "account_deleted"} {
		if _, details := streamRefused(t, url, http.StatusForbidden, "FORBIDDEN"); details["reason"] != reason {
			t.Fatalf("refusal details %v, want reason %s", details, reason)
		}
	}

	// The owner's stream lived through all that and still follows the workspace.
	tx := in(alice).Post("/api/transactions", map[string]any{"type": "expense", "amount": 3}).Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	if e := next(t, aliceStream); e.Event != "transaction.created" || e.Data["data"].(map[string]any)["transactionId"] != tx {
		t.Fatalf("owner's stream got %+v", e)
	}
	in(alice).Delete("/api/workspace").Expect(t, http.StatusOK)
	expectRevoked(t, aliceStream, "workspace_deleted")
}

// A token holds at most five streams open at once, a person ten (here seven, whatever
// tokens they mint) and a workspace a hundred (here nine, whoever opens them),
// whichever instances serve them.
func TestRealtimeStreamLimits(t *testing.T) {
	env, _ := apitest.StartEvents(t, nil)
	limits := func(o *httpapi.Options) {
		o.LongAnswers = httpapi.LongAnswerOptions{StreamsPerUser: 7, StreamsPerWorkspace: 9}
	}
	a, b := env.InstanceWith(limits), env.InstanceWith(limits)
	alice, bob := a.As("alice"), a.As("bob")
	bob.Get("/api/me").Expect(t, http.StatusOK)
	ws := alice.Post("/api/workspaces", map[string]any{"name": "Family", "currency": "mxn"}).Expect(t, http.StatusOK).Object("workspace")["id"].(string)
	alice.Post("/api/workspaces/"+ws+"/members", map[string]any{"email": "bob@example.com", "role": "reader"}).Expect(t, http.StatusOK)
	token := func(c *apitest.Client) string {
		return c.With("X-Workspace-Id", ws).Post("/api/realtime/token", nil).Expect(t, http.StatusOK).JSON["url"].(string)
	}
	refused := func(on *apitest.Env, path string, limit int) {
		t.Helper()
		header, details := streamRefused(t, on.URL+path, http.StatusTooManyRequests, "TOO_MANY_STREAMS")
		if header.Get("Retry-After") == "" || fmt.Sprint(details["limit"]) != fmt.Sprint(limit) {
			t.Fatalf("refusal %v %v, want limit %d", header, details, limit)
		}
	}
	open := func(on *apitest.Env, path string) func() {
		t.Helper()
		_, closeStream := openStream(t, on.URL+path, "")
		t.Cleanup(closeStream)
		return closeStream
	}

	// A token: five.
	path := token(alice)
	var closers []func()
	for _, on := range []*apitest.Env{a, a, a, b, b} {
		closers = append(closers, open(on, path))
	}
	refused(a, path, 5)
	refused(b, path, 5)
	// One closed on B frees a place for A.
	closers[4]()
	waitFor(t, "a place freed", 5*time.Second, func() bool { return streamOpens(t, a.URL+path) })
	refused(b, path, 5)

	// A person: seven, whatever tokens they mint.
	second := token(alice)
	open(b, second)
	open(a, second)
	refused(b, second, 7)
	refused(a, token(alice), 7)

	// A workspace: nine, whoever opens them; bob's own limits are far off.
	bobs := token(bob)
	open(a, bobs)
	open(b, bobs)
	refused(b, bobs, 9)
	refused(a, token(bob), 9)
	// Bob's stream of his own workspace is not the family's.
	if !streamOpens(t, a.URL+bob.Post("/api/realtime/token", nil).Expect(t, http.StatusOK).JSON["url"].(string)) {
		t.Fatal("bob's own workspace is held by the family's streams")
	}
}

// Streams opened all at once, on two instances with three tokens of one person, keep
// to the limits: five per token, seven (here) per person.
func TestRealtimeStreamLimitsAtOnce(t *testing.T) {
	env, _ := apitest.StartEvents(t, nil)
	limits := func(o *httpapi.Options) { o.LongAnswers = httpapi.LongAnswerOptions{StreamsPerUser: 7} }
	a, b := env.InstanceWith(limits), env.InstanceWith(limits)
	carol := a.As("carol")
	var paths []string
	for range 3 {
		paths = append(paths, carol.Post("/api/realtime/token", nil).Expect(t, http.StatusOK).JSON["url"].(string))
	}
	type result struct {
		path   string
		status int
		cancel context.CancelFunc
		err    error
	}
	results := make(chan result, 24)
	for i := range 24 {
		on, path := []*apitest.Env{a, b}[i%2], paths[i%3]
		go func() {
			resp, cancel, err := dialStream(on.URL+path, "")
			if err != nil {
				results <- result{err: err}
				return
			}
			if resp.StatusCode != http.StatusOK {
				cancel()
				_ = resp.Body.Close()
			}
			results <- result{path: path, status: resp.StatusCode, cancel: cancel}
		}()
	}
	perToken := map[string]int{}
	opened := 0
	for range 24 {
		r := <-results
		switch {
		case r.err != nil:
			t.Fatal(r.err)
		case r.status == http.StatusOK:
			opened++
			perToken[r.path]++
			defer r.cancel()
		case r.status != http.StatusTooManyRequests:
			t.Fatalf("status %d", r.status)
		}
	}
	for path, n := range perToken {
		if n > 5 {
			t.Fatalf("%d streams opened at once with token %s, want at most 5", n, path)
		}
	}
	if opened != 7 {
		t.Fatalf("%d streams opened at once by one person, want 7", opened)
	}
}

// The slots of an instance killed with its streams open are freed once its lease runs
// out, not before.
func TestRealtimeSlotsOfAKilledInstance(t *testing.T) {
	env, _ := apitest.StartEvents(t, nil)
	doomed, kill := env.Killable()
	path := env.As("alice").Post("/api/realtime/token", nil).Expect(t, http.StatusOK).JSON["url"].(string)
	var streams []<-chan sseEvent
	for range 5 {
		events, closeStream := openStream(t, doomed.URL+path, "")
		defer closeStream()
		streams = append(streams, events)
	}
	streamRefused(t, env.URL+path, http.StatusTooManyRequests, "TOO_MANY_STREAMS")

	kill()
	killed := time.Now()
	for _, events := range streams {
		expectEnd(t, events) // the killed instance's clients see their streams end
	}
	// Its rows are still there, so its slots still count until its lease (two
	// seconds in tests) runs out.
	streamRefused(t, env.URL+path, http.StatusTooManyRequests, "TOO_MANY_STREAMS")
	var freed time.Duration
	waitFor(t, "the killed instance's slots", 6*time.Second, func() bool {
		freed = time.Since(killed)
		return streamOpens(t, env.URL+path)
	})
	t.Logf("slots freed %s after the kill", freed)
}
