package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/finledger/finledger/httpapi"
	"github.com/finledger/finledger/httpapi/channel"
	"github.com/finledger/finledger/internal/testkit/apitest"
)

// concurrently sends n requests at once, request i through instance i%len(on), and
// returns the answers in the order of i.
func concurrently(n int, on []*apitest.Env, send func(i int, on *apitest.Env) *apitest.Response) []*apitest.Response {
	out := make([]*apitest.Response, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i] = send(i, on[i%len(on)])
		}()
	}
	close(start)
	wg.Wait()
	return out
}

// threeInstances returns env and two more instances on its database.
func threeInstances(env *apitest.Env) []*apitest.Env {
	return []*apitest.Env{env, env.Instance(), env.Instance()}
}

// phoneNumber is the i-th test phone; its masked form ends in its last four digits.
func phoneNumber(i int) string { return fmt.Sprintf("+521551000%04d", i) }

// auditCount counts the audit entries of an entity and action the client can read.
func auditCount(t *testing.T, c *apitest.Client, entity, action string) int {
	t.Helper()
	return len(c.Get("/api/audit?entity="+entity+"&action="+action).Expect(t, http.StatusOK).List("entries"))
}

// One code, ten phones at once, three instances: one link, nine refusals. Rounds with
// fresh users make a race that slips through once unlikely to slip through every time.
func TestLinkCodeIsSpentOnceAcrossInstances(t *testing.T) {
	env := apitest.Start(t)
	instances := threeInstances(env)
	for round := range 3 {
		user := env.As(fmt.Sprintf("alice%d", round))
		code := user.Post("/api/me/whatsapp", nil).Expect(t, http.StatusOK).JSON["code"].(string)
		phone := func(i int) string { return phoneNumber(10*round + i) }

		answers := concurrently(10, instances, func(i int, on *apitest.Env) *apitest.Response {
			return on.Phone(phone(i), nil).Post("/api/whatsapp/link", map[string]any{"code": code})
		})
		winner := -1
		for i, r := range answers {
			switch {
			case r.Status == http.StatusOK && r.JSON["linked"] == true && r.JSON["alreadyLinked"] == nil:
				if winner >= 0 {
					t.Fatalf("round %d: phones %d and %d both linked: %s", round, winner, i, r.Raw)
				}
				winner = i
			case r.Status == http.StatusBadRequest && r.ErrorCode() == "WHATSAPP_CODE_INVALID":
			default:
				t.Fatalf("round %d, phone %d: %d %s", round, i, r.Status, r.Raw)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no phone linked", round)
		}
		// The read model: the user's link is the winner's phone, and only the winner's
		// phone is linked.
		status := user.Get("/api/me/whatsapp").Expect(t, http.StatusOK).JSON
		if status["linked"] != true || !strings.HasSuffix(status["phone"].(string), phone(winner)[10:]) {
			t.Fatalf("round %d: link %v, phone %d won", round, status, winner)
		}
		var links int
		if err := env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM whatsapp_links`).Scan(&links); err != nil || links != round+1 {
			t.Fatalf("round %d: %d links (%v)", round, links, err)
		}
		for i := range 10 {
			if r := instances[i%3].Phone(phone(i), nil).Get("/api/wallets"); i == winner {
				r.Expect(t, http.StatusOK)
			} else {
				expectError(t, r, http.StatusUnauthorized, "WHATSAPP_NOT_LINKED")
			}
		}
		if n := auditCount(t, user, "whatsapp_link", "create"); n != 1 {
			t.Fatalf("round %d: %d links in the audit log", round, n)
		}
		// The winner sending the code again is told it is linked; a loser is still refused.
		for _, on := range instances {
			if again := on.Phone(phone(winner), nil).Post("/api/whatsapp/link", map[string]any{"code": code}).Expect(t, http.StatusOK); again.JSON["alreadyLinked"] != true {
				t.Fatalf("round %d: the winner again: %s", round, again.Raw)
			}
		}
		expectError(t, instances[1].Phone(phone((winner+1)%10), nil).Post("/api/whatsapp/link", map[string]any{"code": code}),
			http.StatusBadRequest, "WHATSAPP_CODE_INVALID")
	}
}

// One phone sending its code several times at once links once; the others are told it
// is linked already.
func TestLinkCodeRepeatedByOnePhoneAtOnce(t *testing.T) {
	env := apitest.Start(t)
	instances := threeInstances(env)
	for round := range 3 {
		user := env.As(fmt.Sprintf("alice%d", round))
		code := user.Post("/api/me/whatsapp", nil).Expect(t, http.StatusOK).JSON["code"].(string)
		answers := concurrently(5, instances, func(_ int, on *apitest.Env) *apitest.Response {
			return on.Phone(phoneNumber(round), nil).Post("/api/whatsapp/link", map[string]any{"code": code})
		})
		fresh := 0
		for _, r := range answers {
			if r.Status != http.StatusOK || r.JSON["linked"] != true || r.JSON["workspaceName"] != "Personal" {
				t.Fatalf("round %d: %d %s", round, r.Status, r.Raw)
			}
			if r.JSON["alreadyLinked"] == nil {
				fresh++
			}
		}
		if fresh != 1 {
			t.Fatalf("round %d: %d answers without alreadyLinked", round, fresh)
		}
		if n := auditCount(t, user, "whatsapp_link", "create"); n != 1 {
			t.Fatalf("round %d: %d links in the audit log", round, n)
		}
	}
}

// One phone sending two users' codes at once is linked to one of them, as if one
// request came after the other; neither request fails.
func TestOnePhoneLinkingTwoUsersAtOnce(t *testing.T) {
	env := apitest.Start(t)
	instances := threeInstances(env)
	for round := range 10 {
		users := []*apitest.Client{env.As(fmt.Sprintf("alice%d", round)), env.As(fmt.Sprintf("bob%d", round))}
		codes := make([]string, len(users))
		for i, u := range users {
			codes[i] = u.Post("/api/me/whatsapp", nil).Expect(t, http.StatusOK).JSON["code"].(string)
		}
		phone := phoneNumber(round)
		for _, r := range concurrently(2, instances, func(i int, on *apitest.Env) *apitest.Response {
			return on.Phone(phone, nil).Post("/api/whatsapp/link", map[string]any{"code": codes[i]})
		}) {
			if r.Status != http.StatusOK || r.JSON["linked"] != true || r.JSON["alreadyLinked"] != nil {
				t.Fatalf("round %d: %d %s", round, r.Status, r.Raw)
			}
		}
		linked := 0
		for _, u := range users {
			if u.Get("/api/me/whatsapp").Expect(t, http.StatusOK).JSON["linked"] == true {
				linked++
			}
		}
		if linked != 1 {
			t.Fatalf("round %d: the phone is linked to %d users", round, linked)
		}
	}
}

// Wrong codes sent at once are each counted: the fifth locks the number, whichever
// instance counted it.
func TestLinkFailuresCountedAtOnce(t *testing.T) {
	env := apitest.Start(t)
	instances := threeInstances(env)
	alice := env.As("alice")
	phone := "+5215522222222"
	for _, r := range concurrently(5, instances, func(i int, on *apitest.Env) *apitest.Response {
		return on.Phone(phone, nil).Post("/api/whatsapp/link", map[string]any{"code": fmt.Sprintf("BADCODE%d", i)})
	}) {
		expectError(t, r, http.StatusBadRequest, "WHATSAPP_CODE_INVALID")
	}
	env.Clock.Set(env.Clock.Now().Add(time.Minute))
	code := alice.Post("/api/me/whatsapp", nil).Expect(t, http.StatusOK).JSON["code"].(string)
	for _, on := range instances {
		expectError(t, on.Phone(phone, nil).Post("/api/whatsapp/link", map[string]any{"code": code}), http.StatusBadRequest, "WHATSAPP_CODE_LOCKED")
	}
	// Once the lock ends the count starts again, and a link clears it.
	env.Clock.Set(env.Clock.Now().Add(15 * time.Minute))
	code = alice.Post("/api/me/whatsapp", nil).Expect(t, http.StatusOK).JSON["code"].(string)
	for i := range 4 {
		expectError(t, env.Phone(phone, nil).Post("/api/whatsapp/link", map[string]any{"code": fmt.Sprintf("WRONG%03d", i)}), http.StatusBadRequest, "WHATSAPP_CODE_INVALID")
	}
	env.Phone(phone, nil).Post("/api/whatsapp/link", map[string]any{"code": code}).Expect(t, http.StatusOK)
	var failures int
	if err := env.Pool.QueryRow(context.Background(), `SELECT coalesce(sum(failures), 0) FROM whatsapp_link_failures`).Scan(&failures); err != nil || failures != 0 {
		t.Fatalf("%d failures left after linking (%v)", failures, err)
	}
}

// A right code sent with the wrong ones that lock the phone either links before the
// lock, with failures counted after it, or is refused as locked and stays unspent:
// never a link that wipes out a lock it came after.
func TestLinkCodeRacingTheLock(t *testing.T) {
	env := apitest.Start(t)
	instances := threeInstances(env)
	for round := range 6 {
		user := env.As(fmt.Sprintf("alice%d", round))
		phone := phoneNumber(round)
		expectError(t, env.Phone(phone, nil).Post("/api/whatsapp/link", map[string]any{"code": "BADCODE0"}), http.StatusBadRequest, "WHATSAPP_CODE_INVALID")
		env.Clock.Set(env.Clock.Now().Add(time.Minute)) // five more attempts a minute
		code := user.Post("/api/me/whatsapp", nil).Expect(t, http.StatusOK).JSON["code"].(string)
		answers := concurrently(5, instances, func(i int, on *apitest.Env) *apitest.Response {
			if i == 4 {
				return on.Phone(phone, nil).Post("/api/whatsapp/link", map[string]any{"code": code})
			}
			return on.Phone(phone, nil).Post("/api/whatsapp/link", map[string]any{"code": fmt.Sprintf("BADCODE%d", i+1)})
		})
		for _, r := range answers[:4] {
			expectError(t, r, http.StatusBadRequest, "WHATSAPP_CODE_INVALID")
		}
		var failures int
		var locked bool
		if err := env.Pool.QueryRow(context.Background(), `SELECT failures, locked_until IS NOT NULL FROM whatsapp_link_failures`).Scan(&failures, &locked); err != nil {
			t.Fatal(err)
		}
		switch linked := user.Get("/api/me/whatsapp").Expect(t, http.StatusOK).JSON["linked"]; {
		case answers[4].Status == http.StatusOK:
			if linked != true || failures == 0 && !locked {
				t.Fatalf("round %d: linked %v with %d failures after it, locked %v", round, linked, failures, locked)
			}
		case answers[4].ErrorCode() == "WHATSAPP_CODE_LOCKED":
			if linked != false || !locked {
				t.Fatalf("round %d: refused as locked, but linked %v, locked %v", round, linked, locked)
			}
			env.Phone(phoneNumber(100+round), nil).Post("/api/whatsapp/link", map[string]any{"code": code}).Expect(t, http.StatusOK)
		default:
			t.Fatalf("round %d: %d %s", round, answers[4].Status, answers[4].Raw)
		}
		if _, err := env.Pool.Exec(context.Background(), `DELETE FROM whatsapp_link_failures`); err != nil {
			t.Fatal(err)
		}
	}
}

// Codes asked for at once leave one live code, the one of the request answered last;
// every other answered code no longer links.
func TestLinkCodesIssuedAtOnce(t *testing.T) {
	env := apitest.Start(t)
	instances := threeInstances(env)
	for round := range 3 {
		user := env.As(fmt.Sprintf("alice%d", round))
		me := user.Get("/api/me").Expect(t, http.StatusOK).Object("user")["id"]
		answers := concurrently(10, instances, func(_ int, on *apitest.Env) *apitest.Response {
			return user.On(on).Post("/api/me/whatsapp", nil)
		})
		for _, r := range answers {
			r.Expect(t, http.StatusOK)
		}
		var live int
		if err := env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM whatsapp_link_codes WHERE user_id = $1 AND used_at IS NULL`, me).
			Scan(&live); err != nil || live != 1 {
			t.Fatalf("round %d: %d live codes (%v)", round, live, err)
		}
		linked := 0
		for i, r := range answers {
			res := env.Phone(phoneNumber(10*round+i), nil).Post("/api/whatsapp/link", map[string]any{"code": r.JSON["code"]})
			switch {
			case res.Status == http.StatusOK:
				linked++
			case res.ErrorCode() != "WHATSAPP_CODE_INVALID":
				t.Fatalf("round %d, code %d: %d %s", round, i, res.Status, res.Raw)
			}
		}
		if linked != 1 {
			t.Fatalf("round %d: %d of the answered codes linked", round, linked)
		}
	}
}

// One identity token presented at once to three instances passes once.
func TestChannelTokenSpentOnceAtOnce(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	linkPhone(t, env, alice, alicePhone, nil)
	token := channel.Mint(apitest.ChannelSecret, env.ChannelClaims(alicePhone, nil))
	passed := 0
	for _, r := range concurrently(9, threeInstances(env), func(_ int, on *apitest.Env) *apitest.Response {
		return on.Anonymous().With("X-Channel-Identity", token).Get("/api/wallets")
	}) {
		if r.Status == http.StatusOK {
			passed++
		} else if got := reason(t, r); got != "reused" {
			t.Fatalf("reason %q", got)
		}
	}
	if passed != 1 {
		t.Fatalf("the token passed %d times", passed)
	}
}

// A token id is kept past the token's last acceptable second by a margin, so that an
// instance whose clock runs ahead cannot purge it while another still accepts the token.
func TestChannelTokenKeptThroughClockSkew(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	linkPhone(t, env, alice, alicePhone, nil)
	token := channel.Mint(apitest.ChannelSecret, env.ChannelClaims(alicePhone, nil))
	env.Anonymous().With("X-Channel-Identity", token).Get("/api/wallets").Expect(t, http.StatusOK)
	ahead := env.Clock.Now().Add(channel.Lifetime + channel.Tolerance + 5*time.Minute)
	if _, err := httpapi.PurgeChannelTokens(context.Background(), env.Pool, ahead); err != nil {
		t.Fatal(err)
	}
	if got := reason(t, env.Anonymous().With("X-Channel-Identity", token).Get("/api/wallets")); got != "reused" {
		t.Fatalf("reason %q after a purge by a clock 5 minutes ahead", got)
	}
	purged, err := httpapi.PurgeChannelTokens(context.Background(), env.Pool, ahead.Add(time.Hour))
	if err != nil || purged == 0 {
		t.Fatalf("purged %d (%v)", purged, err)
	}
}
