package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/minio/minio-go/v7/pkg/s3utils"

	"github.com/finledger/finledger/attachments"
	"github.com/finledger/finledger/billing"
	"github.com/finledger/finledger/httpapi"
	"github.com/finledger/finledger/httpapi/channel"
	"github.com/finledger/finledger/httpapi/session"
	"github.com/finledger/finledger/internal/fx"
	"github.com/finledger/finledger/internal/sealbox"
	"github.com/finledger/finledger/webapp"
	"github.com/finledger/finledger/webhooks/bus"
	"github.com/finledger/finledger/webhooks/safehttp"
)

// config is every setting of the binary, read once from FINLEDGER_* variables.
type config struct {
	DatabaseURL           string
	HTTPAddr              string
	AdminAddr             string // pprof and metrics for operators; "" (the default): not served
	Env                   string
	DataDir               string
	SessionJWKSURL        string
	SessionHS256Secret    string
	SessionIssuer         string
	SessionAudience       string
	StateCacheSize        int
	StateCacheMB          int
	DBMaxConns            int
	RateLimitPerMinute    int
	RateLimitBurst        int
	AuthFailuresPerMinute int
	AuthFailureBurst      int
	TrustedProxies        []netip.Prefix
	ChannelSecret         string
	ChannelIssuer         string
	PublicOrigin          string
	ChannelDevAudience    string
	NATSURL               string
	NATSReplicas          int
	Deployment            string
	SecretKey             string
	WebhookAllowPriv      bool
	WebhookSchedule       []time.Duration
	VAPIDPublicKey        string
	VAPIDPrivateKey       string
	VAPIDSubject          string
	OIDCIssuer            string
	ECBURL                string
	APIKey                string // the key `finledger mcp` acts with
	OIDCClientID          string
	OIDCClientSecret      string
	Billing               string // the payment provider: "none" or "stripe"
	StripeSecretKey       string
	StripeAPIURL          string
	FilesS3Endpoint       string // "": receipts' files in the database
	FilesS3Bucket         string
	FilesS3AccessKey      string
	FilesS3SecretKey      string
	FilesS3Region         string
	// DevSignIn turns on the web app's one-click sign-in as the development identity;
	// only `finledger dev` sets it.
	DevSignIn bool
	// DevRates loads the ECB's history shipped with the binary at start, and fetches
	// the day's rates in the background; only `finledger dev` sets it.
	DevRates bool
	// PublicMetrics serves the metrics on the API's listener too, for a developer's
	// curl; only `finledger dev` sets it. `serve` keeps them on FINLEDGER_ADMIN_ADDR.
	PublicMetrics bool
	// QuietRequests logs each request at Debug, below the default level, not at Info;
	// only `finledger dev` sets it, so that its console keeps the token in sight.
	QuietRequests bool
}

// localOrigin is the chat channel's audience outside production when no public origin
// is set.
const localOrigin = "http://localhost:8080"

// channelAudiences returns the audiences the chat channel accepts; none (in production
// without a public origin) leaves the channel unconfigured.
func (c config) channelAudiences() []string {
	if c.Env == "production" {
		if c.PublicOrigin == "" {
			return nil
		}
		return []string{c.PublicOrigin}
	}
	audiences := []string{localOrigin}
	if c.PublicOrigin != "" {
		audiences = []string{c.PublicOrigin}
	}
	if c.ChannelDevAudience != "" {
		audiences = append(audiences, c.ChannelDevAudience)
	}
	return audiences
}

// setting is one FINLEDGER_* variable: its name, the default it takes when unset, what
// it means (for `finledger config`), whether its value is secret, and how it is read
// into the config, which refuses a value it cannot use with an error naming it.
type setting struct {
	name   string
	def    string
	about  string
	secret bool
	read   func(c *config, v string) error
}

// settings are every FINLEDGER_* variable the binary reads, in the order `finledger
// config` prints them. docs/operating.md's tables say more of each.
var settings = []setting{
	{"FINLEDGER_ENV", "development", "development or production", false, func(c *config, v string) error {
		if v != "development" && v != "production" {
			return errors.New("must be development or production")
		}
		c.Env = v
		return nil
	}},
	{"FINLEDGER_DATABASE_URL", "", "PostgreSQL URL (dev starts its own)", true, func(c *config, v string) error {
		if v != "" {
			if _, err := pgxpool.ParseConfig(v); err != nil {
				return errors.New("is not a PostgreSQL URL or connection string")
			}
		}
		c.DatabaseURL = v
		return nil
	}},
	{"FINLEDGER_HTTP_ADDR", "127.0.0.1:8080", "the API's listen address", false, address(func(c *config) *string { return &c.HTTPAddr })},
	{"FINLEDGER_ADMIN_ADDR", "", "profiles and metrics for operators (serve's only metrics); unset: off", false, address(func(c *config) *string { return &c.AdminAddr })},
	{"FINLEDGER_DATA_DIR", ".finledger", "where local state is kept", false, text(func(c *config) *string { return &c.DataDir })},
	{"FINLEDGER_SESSION_JWKS_URL", "", "the identity provider's keys (JWKS)", false, httpURL(func(c *config) *string { return &c.SessionJWKSURL })},
	{"FINLEDGER_SESSION_HS256_SECRET", "", "the development identity provider's key", true, text(func(c *config) *string { return &c.SessionHS256Secret })},
	{"FINLEDGER_SESSION_ISSUER", "", "the iss session tokens must have", false, text(func(c *config) *string { return &c.SessionIssuer })},
	{"FINLEDGER_SESSION_AUDIENCE", "", "the aud session tokens must have", false, text(func(c *config) *string { return &c.SessionAudience })},
	{"FINLEDGER_STATE_CACHE_SIZE", "10000", "workspace states kept in memory", false, positive(func(c *config) *int { return &c.StateCacheSize })},
	{"FINLEDGER_STATE_CACHE_MB", "32", "the most memory those states may hold", false, positive(func(c *config) *int { return &c.StateCacheMB })},
	{"FINLEDGER_DB_MAX_CONNS", "32", "database connection pool size", false, positive(func(c *config) *int { return &c.DBMaxConns })},
	{"FINLEDGER_RATE_LIMIT_PER_MINUTE", "1200", "requests a minute per person (sessions and keys), sustained", false, positive(func(c *config) *int { return &c.RateLimitPerMinute })},
	{"FINLEDGER_RATE_LIMIT_BURST", "600", "requests a person may make at once", false, positive(func(c *config) *int { return &c.RateLimitBurst })},
	{"FINLEDGER_AUTH_FAILURE_RATE", "10", "failed authentications a minute per client address and per key prefix, sustained", false, positive(func(c *config) *int { return &c.AuthFailuresPerMinute })},
	{"FINLEDGER_AUTH_FAILURE_BURST", "20", "failed authentications an address or key prefix may make at once", false, positive(func(c *config) *int { return &c.AuthFailureBurst })},
	{"FINLEDGER_TRUSTED_PROXIES", "", "proxies (addresses, CIDR prefixes) whose X-Forwarded-For gives the client address; unset: none", false, func(c *config, v string) error {
		var err error
		c.TrustedProxies, err = httpapi.ParseTrustedProxies(v)
		return err
	}},
	{"FINLEDGER_CHANNEL_SECRET", "", "the chat channel's key (64 hex characters); unset: channel off", true, func(c *config, v string) error {
		if v != "" && !channel.SecretPattern.MatchString(v) {
			return errors.New("must be 64 hexadecimal characters")
		}
		c.ChannelSecret = v
		return nil
	}},
	{"FINLEDGER_CHANNEL_ISSUER", "finledger-channel", "the chat channel provider's iss", false, text(func(c *config) *string { return &c.ChannelIssuer })},
	{"FINLEDGER_PUBLIC_ORIGIN", "", "the service's public origin", false, func(c *config, v string) error {
		if v != "" {
			if u, err := url.Parse(v); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || (u.Path != "" && u.Path != "/") {
				return errors.New("must be an origin, such as https://money.example.com")
			}
		}
		c.PublicOrigin = strings.TrimSuffix(v, "/")
		return nil
	}},
	{"FINLEDGER_ECB_URL", fx.ECBDailyURL, "the ECB's daily reference rates (eurofxref XML), for `finledger rates` and the web app's import", false,
		httpURL(func(c *config) *string { return &c.ECBURL })},
	{"FINLEDGER_API_KEY", "", "the API key `finledger mcp` relays its client's messages with", true, text(func(c *config) *string { return &c.APIKey })},
	{"FINLEDGER_OIDC_ISSUER", "", "the OpenID provider the web app signs people in with; unset: off", false, httpURL(func(c *config) *string { return &c.OIDCIssuer })},
	{"FINLEDGER_OIDC_CLIENT_ID", "", "the web app's client id at the OpenID provider", false, text(func(c *config) *string { return &c.OIDCClientID })},
	{"FINLEDGER_OIDC_CLIENT_SECRET", "", "the web app's client secret at the OpenID provider", true, text(func(c *config) *string { return &c.OIDCClientSecret })},
	{"FINLEDGER_CHANNEL_DEV_AUDIENCE", "", "an extra aud the channel accepts outside production", false, text(func(c *config) *string { return &c.ChannelDevAudience })},
	{"FINLEDGER_NATS_URL", "", "NATS with JetStream; unset: an in-process server", true, func(c *config, v string) error {
		for _, server := range strings.Split(v, ",") {
			server = strings.TrimSpace(server)
			if !strings.Contains(server, "://") {
				server = "nats://" + server // as the NATS client reads a bare host:port
			}
			if u, err := url.Parse(server); v != "" && (err != nil || u.Host == "") {
				return errors.New("must be nats://host:port URLs, separated by commas")
			}
		}
		c.NATSURL = v
		return nil
	}},
	{"FINLEDGER_NATS_REPLICAS", "1", "how many NATS servers keep the stream (1-5)", false, func(c *config, v string) error {
		// JetStream replicates a stream on at most five servers.
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 5 {
			return errors.New("must be a whole number from 1 to 5")
		}
		c.NATSReplicas = n
		return nil
	}},
	{"FINLEDGER_DEPLOYMENT", "", "this deployment's name on NATS; unset: derived from the database", false, func(c *config, v string) error {
		// It names the deployment's stream, subjects and consumers on NATS.
		if v != "" {
			if _, err := bus.NamesOf(v); err != nil {
				return errors.New("must be 1 to 32 letters, digits, '-' or '_'")
			}
		}
		c.Deployment = v
		return nil
	}},
	{"FINLEDGER_SECRET_KEY", "", "the key (64 hex characters) that seals secrets at rest", true, func(c *config, v string) error {
		if v != "" {
			if _, err := sealbox.ParseKey(v); err != nil {
				return errors.New("must be 64 hexadecimal characters")
			}
		}
		c.SecretKey = v
		return nil
	}},
	{"FINLEDGER_WEBHOOK_ALLOW_PRIVATE", "false", "let production webhooks reach private addresses", false, func(c *config, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil || (v != "true" && v != "false") {
			return errors.New("must be true or false")
		}
		c.WebhookAllowPriv = b
		return nil
	}},
	{"FINLEDGER_WEBHOOK_RETRY_SCHEDULE", "10s,1m,5m,30m,2h,6h,18h", "the waits before each webhook retry", false, func(c *config, v string) error {
		var err error
		c.WebhookSchedule, err = parseSchedule(v)
		return err
	}},
	{"FINLEDGER_VAPID_PUBLIC_KEY", "", "the Web Push identity's public key", false, text(func(c *config) *string { return &c.VAPIDPublicKey })},
	{"FINLEDGER_VAPID_PRIVATE_KEY", "", "the Web Push identity's private key", true, text(func(c *config) *string { return &c.VAPIDPrivateKey })},
	{"FINLEDGER_VAPID_SUBJECT", "mailto:admin@localhost", "the contact push services may use", false, func(c *config, v string) error {
		if !strings.HasPrefix(v, "mailto:") && !strings.HasPrefix(v, "https://") {
			return errors.New("must be a mailto: or https: URL")
		}
		c.VAPIDSubject = v
		return nil
	}},
	// The Stripe settings are read after FINLEDGER_BILLING, which they are checked against:
	// a key without the provider would leave subscriptions running after an account is gone.
	{"FINLEDGER_BILLING", "none", "the payment provider whose subscriptions account deletion cancels: none (nothing to cancel) or stripe", false, func(c *config, v string) error {
		if v != "none" && v != "stripe" {
			return errors.New("must be none or stripe")
		}
		c.Billing = v
		return nil
	}},
	{"FINLEDGER_STRIPE_SECRET_KEY", "", "Stripe's secret or restricted API key, for FINLEDGER_BILLING=stripe", true, func(c *config, v string) error {
		switch {
		case c.Billing == "stripe" && v == "":
			return errors.New("must be set when FINLEDGER_BILLING is stripe")
		case c.Billing != "stripe" && v != "":
			return errors.New("is set but FINLEDGER_BILLING is not stripe: set FINLEDGER_BILLING=stripe, or unset the key")
		case v != "" && !strings.HasPrefix(v, "sk_") && !strings.HasPrefix(v, "rk_"):
			return errors.New("must be a Stripe secret (sk_) or restricted (rk_) key")
		}
		c.StripeSecretKey = v
		return nil
	}},
	{"FINLEDGER_STRIPE_API_URL", "", "where Stripe's API is reached (a stripe-mock, a proxy); unset: api.stripe.com", false, func(c *config, v string) error {
		if v != "" && c.Billing != "stripe" {
			return errors.New("is set but FINLEDGER_BILLING is not stripe")
		}
		return httpURL(func(c *config) *string { return &c.StripeAPIURL })(c, v)
	}},
	// The bucket's settings are read after FINLEDGER_FILES_S3_ENDPOINT, which they are
	// checked against: a partial set would leave files where nobody looks for them.
	{"FINLEDGER_FILES_S3_ENDPOINT", "", "the S3-compatible service receipts' files are kept in (http:// or https://); unset: in the database", false, func(c *config, v string) error {
		if v != "" {
			if _, err := attachments.ParseS3Endpoint(v); err != nil {
				return errors.New("must be an http(s) URL without a path, such as https://s3.example.com")
			}
		}
		c.FilesS3Endpoint = v
		return nil
	}},
	{"FINLEDGER_FILES_S3_BUCKET", "", "the bucket the files are kept in, which must exist", false, filesS3(true, func(c *config, v string) error {
		if err := s3utils.CheckValidBucketNameStrict(v); err != nil {
			return errors.New("must be a bucket's name: 3 to 63 lowercase letters, digits, '.' or '-'")
		}
		c.FilesS3Bucket = v
		return nil
	})},
	{"FINLEDGER_FILES_S3_ACCESS_KEY", "", "the access key the bucket's requests are signed with", false, filesS3(true, text(func(c *config) *string { return &c.FilesS3AccessKey }))},
	{"FINLEDGER_FILES_S3_SECRET_KEY", "", "the secret key the bucket's requests are signed with", true, filesS3(true, text(func(c *config) *string { return &c.FilesS3SecretKey }))},
	{"FINLEDGER_FILES_S3_REGION", "", "the bucket's region; unset: asked of the service", false, filesS3(false, text(func(c *config) *string { return &c.FilesS3Region }))},
}

// filesS3 reads a setting of the bucket of files, which is set only with
// FINLEDGER_FILES_S3_ENDPOINT and, when required, always with it.
func filesS3(required bool, read func(*config, string) error) func(*config, string) error {
	return func(c *config, v string) error {
		switch {
		case v == "" && required && c.FilesS3Endpoint != "":
			return errors.New("must be set when FINLEDGER_FILES_S3_ENDPOINT is")
		case v != "" && c.FilesS3Endpoint == "":
			return errors.New("is set but FINLEDGER_FILES_S3_ENDPOINT is not: set it, or unset this one")
		case v == "":
			return nil
		}
		return read(c, v)
	}
}

func text(field func(*config) *string) func(*config, string) error {
	return func(c *config, v string) error { *field(c) = v; return nil }
}

func positive(field func(*config) *int) func(*config, string) error {
	return func(c *config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return errors.New("must be a positive integer")
		}
		*field(c) = n
		return nil
	}
}

// httpURL takes an absolute http(s) URL, or nothing.
func httpURL(field func(*config) *string) func(*config, string) error {
	return func(c *config, v string) error {
		if v != "" {
			if u, err := url.Parse(v); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return errors.New("must be an http(s) URL")
			}
		}
		*field(c) = v
		return nil
	}
}

func address(field func(*config) *string) func(*config, string) error {
	return func(c *config, v string) error {
		if v != "" {
			if _, port, err := net.SplitHostPort(v); err != nil || port == "" {
				return errors.New("must be host:port, such as 127.0.0.1:8080 or :8080")
			}
		}
		*field(c) = v
		return nil
	}
}

// value is the setting's value in the environment or, unset or empty, its default, and
// which of the two it is ("set" or "default").
func (s setting) value() (v, source string) {
	if v = os.Getenv(s.name); v != "" {
		return v, "set"
	}
	return s.def, "default"
}

// loadConfig reads every setting from the environment, each unset one at its default,
// and reports every value it cannot use, each named.
func loadConfig() (config, error) {
	var c config
	var problems []error
	for _, s := range settings {
		v, _ := s.value()
		if err := s.read(&c, v); err != nil {
			shown := fmt.Sprintf("%q", v)
			if s.secret {
				shown = "its value"
			}
			problems = append(problems, fmt.Errorf("%s: %s %w", s.name, shown, err))
		}
	}
	return c, errors.Join(problems...)
}

// printConfig writes the effective settings, one a line, with secrets masked and where
// each value came from.
func printConfig(w io.Writer) {
	for _, s := range settings {
		v, source := s.value()
		if s.secret && v != "" {
			v = mask(v)
		}
		if v == "" {
			v = "(unset)"
		}
		fmt.Fprintf(w, "%-33s %-40s %-8s %s\n", s.name, v, source, s.about)
	}
}

// mask hides a secret: a URL keeps all but its password; anything else is not shown.
func mask(v string) string {
	if u, err := url.Parse(v); err == nil && u.Scheme != "" && u.Host != "" {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		q := u.Query()
		if q.Has("password") {
			q.Set("password", "xxxxx")
			u.RawQuery = q.Encode()
		}
		return u.String()
	}
	return "(set, not shown)"
}

// billing returns the payment provider FINLEDGER_BILLING names.
func (c config) billing() (httpapi.Billing, error) {
	if c.Billing != "stripe" {
		return billing.None{}, nil
	}
	return billing.NewStripe(billing.StripeConfig{SecretKey: c.StripeSecretKey, APIURL: c.StripeAPIURL})
}

// fileStore is a storage of receipts' files with the purge of those no attachment keeps.
type fileStore interface {
	attachments.Store
	Purge(ctx context.Context, now time.Time) (int64, error)
}

// files returns the storage of receipts' files: the bucket FINLEDGER_FILES_S3_* names,
// or the database.
func (c config) files(pool *pgxpool.Pool) (fileStore, error) {
	if c.FilesS3Endpoint == "" {
		return attachments.NewPostgres(pool), nil
	}
	return attachments.NewS3(pool, attachments.S3Config{Endpoint: c.FilesS3Endpoint, Bucket: c.FilesS3Bucket,
		AccessKey: c.FilesS3AccessKey, SecretKey: c.FilesS3SecretKey, Region: c.FilesS3Region})
}

// browserApp returns the web app: one-click sign-in in development, OpenID Connect when
// configured. Its cookies are Secure unless the service runs for development on plain HTTP.
func (c config) browserApp(pool *pgxpool.Pool, box *sealbox.Box) (*webapp.App, error) {
	cfg := webapp.Config{Sessions: webapp.NewSessions(pool, time.Now), Box: box,
		Secure: c.Env == "production" || strings.HasPrefix(c.PublicOrigin, "https://")}
	if c.DevSignIn {
		cfg.Dev = &session.Claims{Subject: devSubject, Email: devEmail, Name: devName, Issuer: c.SessionIssuer}
	}
	if c.OIDCIssuer != "" {
		cfg.OIDC = &webapp.OIDC{Issuer: c.OIDCIssuer, ClientID: c.OIDCClientID, ClientSecret: c.OIDCClientSecret,
			RedirectURL: c.PublicOrigin + webapp.CallbackPath, HTTPClient: &http.Client{Timeout: 10 * time.Second}}
	}
	return webapp.New(cfg)
}

// protectedResource makes the MCP server an OAuth protected resource where people sign
// in with an OpenID provider: its access tokens are verified as session tokens are
// (FINLEDGER_SESSION_JWKS_URL, _ISSUER, _AUDIENCE).
func (c config) protectedResource() *httpapi.ProtectedResource {
	if c.OIDCIssuer == "" {
		return nil
	}
	return &httpapi.ProtectedResource{Origin: c.PublicOrigin, Issuer: c.OIDCIssuer}
}

// webhookPolicy says where webhooks may point: anywhere outside production, and in
// production not at private addresses unless FINLEDGER_WEBHOOK_ALLOW_PRIVATE says so.
func (c config) webhookPolicy() safehttp.Policy {
	return safehttp.Policy{AllowPrivate: c.Env != "production" || c.WebhookAllowPriv}
}

// checkServe reports settings that serve cannot run without.
func (c config) checkServe() error {
	var problems []error
	if c.DatabaseURL == "" {
		problems = append(problems, errors.New("FINLEDGER_DATABASE_URL is not set (use `finledger dev` for a private database)"))
	}
	if c.SessionJWKSURL == "" && c.SessionHS256Secret == "" {
		problems = append(problems, errors.New("set FINLEDGER_SESSION_JWKS_URL or FINLEDGER_SESSION_HS256_SECRET to verify session tokens"))
	}
	if c.SecretKey == "" && c.Env == "production" {
		problems = append(problems, errors.New("FINLEDGER_SECRET_KEY is not set: production needs a key (64 hexadecimal characters) to keep secrets with"))
	}
	if (c.VAPIDPublicKey == "") != (c.VAPIDPrivateKey == "") {
		problems = append(problems, errors.New("set both FINLEDGER_VAPID_PUBLIC_KEY and FINLEDGER_VAPID_PRIVATE_KEY, or neither"))
	}
	if c.NATSReplicas > 1 && c.NATSURL == "" {
		problems = append(problems, errors.New("FINLEDGER_NATS_REPLICAS above 1 needs FINLEDGER_NATS_URL naming a NATS cluster: the in-process server is one server"))
	}
	if c.OIDCIssuer != "" && (c.OIDCClientID == "" || c.PublicOrigin == "") {
		problems = append(problems, errors.New("FINLEDGER_OIDC_ISSUER needs FINLEDGER_OIDC_CLIENT_ID and FINLEDGER_PUBLIC_ORIGIN (the sign-in returns to its /auth/callback)"))
	}
	if c.Env == "production" && c.SessionHS256Secret != "" && len(c.SessionHS256Secret) < 32 {
		problems = append(problems, errors.New("FINLEDGER_SESSION_HS256_SECRET must be at least 32 characters in production"))
	}
	return errors.Join(problems...)
}

// parseSchedule reads a retry schedule: the waits before each retry, such as
// "10s,1m,5m,30m,2h,6h,18h".
func parseSchedule(v string) ([]time.Duration, error) {
	parts := strings.Split(v, ",")
	if len(parts) > 30 {
		return nil, fmt.Errorf("has %d waits; at most 30", len(parts))
	}
	out := make([]time.Duration, len(parts))
	for i, p := range parts {
		d, err := time.ParseDuration(strings.TrimSpace(p))
		if err != nil || d <= 0 || d > 7*24*time.Hour {
			return nil, fmt.Errorf("holds %q, not a wait from 1ns to 168h (write them like 10s,1m,2h)", p)
		}
		out[i] = d
	}
	return out, nil
}
