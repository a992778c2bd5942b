// Package httpapi owns the REST interface: the router and its route table, request
// parsing and validation, authentication, the error envelope and the OpenAPI document.
package httpapi

import (
	"cmp"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime/debug"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/attachments"
	"github.com/finledger/finledger/httpapi/session"
	"github.com/finledger/finledger/internal/fx"
	"github.com/finledger/finledger/internal/metrics"
	"github.com/finledger/finledger/internal/sealbox"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/webapp"
	"github.com/finledger/finledger/webhooks/bus"
)

// Server serves the API.
type Server struct {
	// requestLogLevel is the level requests are logged at (Options.RequestLogLevel).
	requestLogLevel slog.Level
	pool            *pgxpool.Pool
	ledger          *ledger.Ledger
	sessions        *session.Verifier
	now             func() time.Time
	limiter         rateLimiter
	// failures limits failed authentications per client address and key prefix.
	failures       rateLimiter
	trustedProxies []netip.Prefix
	billing        Billing
	channel        channelSettings
	webhooks       WebhookOptions
	box            *sealbox.Box
	events         *bus.Bus
	answers        *longAnswers
	pushKey        string
	metrics        *metrics.Metrics
	// publicMetrics serves the metrics on the API's own routes (Options.PublicMetrics).
	publicMetrics bool
	browser       *webapp.App
	// ecbURL is the ECB's daily feed the import fetches.
	ecbURL string
	// files stores the files attached to transactions.
	files attachments.Store
	// mcp is the MCP server's transport (newMCPHandler).
	mcp               http.Handler
	protectedResource *ProtectedResource
	// routeByName finds a route by its method and pattern ("POST /api/transactions"): a
	// proposal names its request's route so.
	routeByName map[string]route
}

// Options are the API's settings beyond its collaborators.
type Options struct {
	// RateLimitPerMinute is each person's sustained request rate, their sessions and
	// API keys together; 0 turns the limiter off. RateLimitBurst is how many requests
	// may come at once.
	RateLimitPerMinute int
	RateLimitBurst     int
	// AuthFailuresPerMinute is how fast the failed authentications a client address or
	// an API key prefix may make refill; 0 turns their limit off. AuthFailureBurst is
	// how many may come at once.
	AuthFailuresPerMinute int
	AuthFailureBurst      int
	// TrustedProxies are the proxies whose X-Forwarded-For names the client address of
	// a request they pass on; from anyone else, the connection's address is the client's.
	TrustedProxies []netip.Prefix
	// Billing cancels a user's subscriptions when they delete their account.
	Billing Billing
	// Channel configures the chat channel; without a secret every channel request is
	// 503 WHATSAPP_NOT_CONFIGURED.
	Channel ChannelOptions
	// Webhooks configures outbound webhooks.
	Webhooks WebhookOptions
	// Box seals secrets kept at rest (webhook signing secrets) and realtime tokens;
	// without it neither can be made.
	Box *sealbox.Box
	// Events is the deployment's bus the realtime stream is fed from, on its subjects;
	// without it the stream is not available.
	Events *bus.Bus
	// Realtime tunes how open realtime streams are checked, and long answers counted,
	// across instances.
	Realtime RealtimeOptions
	// LongAnswers bounds the realtime streams and bulk reads open at once, and how long a
	// chunk of one waits for its client.
	LongAnswers LongAnswerOptions
	// PushPublicKey is the VAPID public key browsers subscribe with; without it Web Push
	// notifications are off.
	PushPublicKey string
	// Metrics counts the requests answered; nil: not counted.
	Metrics *metrics.Metrics
	// PublicMetrics serves Metrics at GET /metrics beside the API, for development
	// only: in production the metrics are the operators' and are served on their own
	// listener (FINLEDGER_ADMIN_ADDR), never where clients reach.
	PublicMetrics bool
	// Browser is the web app with its sign-in; its session cookie then authenticates API
	// requests too. nil: no app, and cookies are ignored.
	Browser *webapp.App
	// RequestLogLevel is the level of each request's log line: Info unless set (`finledger
	// dev` logs them at Debug, to keep its console readable).
	RequestLogLevel slog.Level
	// ECBURL is where POST /api/exchange-rates/ecb fetches the ECB's daily reference
	// rates; "": fx.ECBDailyURL.
	ECBURL string
	// Files stores the files attached to transactions; nil: the database does.
	Files attachments.Store
	// ProtectedResource, set where people sign in with an OpenID provider, makes the MCP
	// server an OAuth protected resource (RFC 9728): it takes that provider's access
	// tokens besides API keys, and tells clients where to get one.
	ProtectedResource *ProtectedResource
}

// ProtectedResource is what the MCP server tells OAuth clients of itself.
type ProtectedResource struct {
	Origin string // the service's public origin, as clients reach it
	Issuer string // the OpenID provider that issues the access tokens the service verifies
}

// ChannelOptions are the chat channel's settings (spec 5.4).
type ChannelOptions struct {
	Secret    string   // 64 hex characters shared with the channel provider
	Issuer    string   // the provider's fixed issuer name
	Audiences []string // accepted aud values; none means not configured
	// CodeRandom is the randomness link codes are drawn from; nil: crypto/rand.
	CodeRandom io.Reader
}

// NewServer wires the API to its database, ledger, session verifier and clock.
func NewServer(pool *pgxpool.Pool, ledger *ledger.Ledger, sessions *session.Verifier, now func() time.Time, opts Options) *Server {
	s := &Server{pool: pool, ledger: ledger, sessions: sessions, now: now, billing: opts.Billing, webhooks: opts.Webhooks, box: opts.Box, events: opts.Events, pushKey: opts.PushPublicKey, metrics: opts.Metrics, publicMetrics: opts.PublicMetrics, browser: opts.Browser,
		limiter: rateLimiter{perMinute: float64(opts.RateLimitPerMinute), burst: float64(opts.RateLimitBurst), counts: "requests for this person"},
		failures: rateLimiter{perMinute: float64(opts.AuthFailuresPerMinute), burst: float64(opts.AuthFailureBurst),
			counts: "failed authentications from this address or with this key prefix"},
		trustedProxies: opts.TrustedProxies, requestLogLevel: opts.RequestLogLevel}
	s.ecbURL = cmp.Or(opts.ECBURL, fx.ECBDailyURL)
	s.files = opts.Files
	s.protectedResource = opts.ProtectedResource
	if s.files == nil {
		s.files = attachments.NewPostgres(pool)
	}
	s.channel = newChannelSettings(opts.Channel, pool, now)
	s.answers = newLongAnswers(pool, opts.Realtime, opts.LongAnswers)
	s.mcp = s.newMCPHandler()
	s.routeByName = make(map[string]route, len(routes))
	for _, rt := range routes {
		s.routeByName[rt.Method+" "+rt.Pattern] = rt
	}
	return s
}

// Handler returns the HTTP handler of the whole service.
func (s *Server) Handler() http.Handler {
	r := chi.NewRouter()
	r.Use(s.observe, recoverPanics, refuseUnstorableQuery)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) { writeError(w, r, errNotFound) })
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) { writeError(w, r, errMethod) })
	r.Get("/healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	r.Get("/readyz", s.ready)
	r.Get("/api/openapi.json", serveOpenAPI)
	r.Get("/", s.serveHome())
	r.Get("/api/docs", serveDoc("index.html", "text/html; charset=utf-8"))
	r.Get("/api/docs/docs.js", serveDoc("docs.js", "text/javascript; charset=utf-8"))
	r.Get("/api/docs/docs.css", serveDoc("docs.css", "text/css; charset=utf-8"))
	if s.browser != nil {
		s.browser.Routes(r)
	}
	if s.protectedResource != nil {
		// The document of the resource /mcp, at its own path and at the root path that
		// clients also try first.
		r.Get(protectedResourcePath+mcpPath, s.serveProtectedResource)
		r.Get(protectedResourcePath, s.serveProtectedResource)
	}
	if s.metrics != nil && s.publicMetrics {
		r.Method(http.MethodGet, "/metrics", s.metrics.Handler())
	}
	for _, rt := range routes {
		if rt.Scope == realtimeTokenOnly || rt.Scope == toolScopes {
			// The realtime stream authenticates by its token, the MCP server by an API key
			// alone, and each tool by its own scope: not as the guard does.
			r.Method(rt.Method, rt.Pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { rt.Handler(s, w, r) }))
			continue
		}
		r.Method(rt.Method, rt.Pattern, s.guard(rt))
	}
	return r
}

// guard authenticates a request for a route, checks the caller may call it, and runs
// the route's handler, as a bulk read for those that are (readInBulk), with the route
// in the request's context (routeFrom). The chat channel's identity header makes it a
// channel request, allowed only on the routes that declare Channel (spec 4.B).
func (s *Server) guard(rt route) http.Handler {
	key := rt.Method + " " + rt.Pattern
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p *principal
		var err error
		switch {
		case r.Header.Get(channelHeader) != "":
			p, err = s.resolveChannel(r, key, rt.Channel != nil)
		case rt.Scope == channelOnly:
			err = identityError(channelReasonMissing())
		default:
			p, err = s.resolve(r)
		}
		if err == nil {
			scope := rt.Scope
			if p.Channel != nil {
				scope = rt.Channel.Scope
			}
			err = p.authorize(scope)
		}
		if p != nil {
			noteCaller(r.Context(), p)
		}
		if err != nil {
			writeError(w, r, err)
			return
		}
		s.serveAs(rt, p, w, r)
	})
}

// serveAs runs a route's handler for a caller already authenticated and authorized,
// with both in the request's context: the guard's last step, and how a tool of the MCP
// server runs the route it stands for.
func (s *Server) serveAs(rt route, p *principal, w http.ResponseWriter, r *http.Request) {
	if p.Proposes && rt.Method != http.MethodGet && !rt.Proposable {
		writeError(w, r, errNotProposable(&rt))
		return
	}
	ctx := context.WithValue(r.Context(), principalKey{}, p)
	r = r.WithContext(context.WithValue(ctx, routeKey{}, &rt))
	if rt.Bulk {
		s.readInBulk(w, r, p, rt.Handler)
		return
	}
	rt.Handler(s, w, r)
}

type routeKey struct{}

// routeFrom is the route a request is served by, which the guard put in its context.
func routeFrom(ctx context.Context) *route {
	rt, _ := ctx.Value(routeKey{}).(*route)
	return rt
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.pool.Ping(ctx); err != nil {
		writeError(w, r, &apiError{Status: http.StatusServiceUnavailable, Code: "NOT_READY", Message: "the database is not reachable",
			RetryAfter: unavailableRetryAfter})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// recoverPanics answers a panic with the error envelope and logs the stack.
func recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				slog.ErrorContext(r.Context(), "panic", "requestId", requestID(r.Context()), "panic", v, "stack", string(debug.Stack()))
				writeError(w, r, errInternal)
			}
		}()
		next.ServeHTTP(w, r)
	})
}
