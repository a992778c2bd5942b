package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/finledger/finledger/httpapi/channel"
	"github.com/finledger/finledger/internal/sealbox"
	"github.com/finledger/finledger/webhooks/bus"
	"github.com/finledger/finledger/webhooks/safehttp"
)

// config is every setting of the binary, read once from FINLEDGER_* variables.
type config struct {
	DatabaseURL        string
	HTTPAddr           string
	AdminAddr          string // pprof and metrics for operators; "" (the default): not served
	Env                string
	DataDir            string
	SessionJWKSURL     string
	SessionHS256Secret string
	SessionIssuer      string
	SessionAudience    string
	StateCacheSize     int
	StateCacheMB       int
	DBMaxConns         int
	RateLimitPerMinute int
	RateLimitBurst     int
	ChannelSecret      string
	ChannelIssuer      string
	PublicOrigin       string
	ChannelDevAudience string
	NATSURL            string
	Deployment         string
	SecretKey          string
	WebhookAllowPriv   bool
	WebhookSchedule    []time.Duration
	VAPIDPublicKey     string
	VAPIDPrivateKey    string
	VAPIDSubject       string
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

func loadConfig() (config, error) {
	c := config{
		DatabaseURL:        os.Getenv("FINLEDGER_DATABASE_URL"),
		HTTPAddr:           envOr("FINLEDGER_HTTP_ADDR", "127.0.0.1:8080"),
		AdminAddr:          os.Getenv("FINLEDGER_ADMIN_ADDR"),
		Env:                envOr("FINLEDGER_ENV", "development"),
		DataDir:            envOr("FINLEDGER_DATA_DIR", ".finledger"),
		SessionJWKSURL:     os.Getenv("FINLEDGER_SESSION_JWKS_URL"),
		SessionHS256Secret: os.Getenv("FINLEDGER_SESSION_HS256_SECRET"),
		SessionIssuer:      os.Getenv("FINLEDGER_SESSION_ISSUER"),
		SessionAudience:    os.Getenv("FINLEDGER_SESSION_AUDIENCE"),
		ChannelSecret:      os.Getenv("FINLEDGER_CHANNEL_SECRET"),
		ChannelIssuer:      envOr("FINLEDGER_CHANNEL_ISSUER", "finledger-channel"),
		PublicOrigin:       os.Getenv("FINLEDGER_PUBLIC_ORIGIN"),
		ChannelDevAudience: os.Getenv("FINLEDGER_CHANNEL_DEV_AUDIENCE"),
		NATSURL:            os.Getenv("FINLEDGER_NATS_URL"),
		Deployment:         os.Getenv("FINLEDGER_DEPLOYMENT"),
		SecretKey:          os.Getenv("FINLEDGER_SECRET_KEY"),
		VAPIDPublicKey:     os.Getenv("FINLEDGER_VAPID_PUBLIC_KEY"),
		VAPIDPrivateKey:    os.Getenv("FINLEDGER_VAPID_PRIVATE_KEY"),
		VAPIDSubject:       envOr("FINLEDGER_VAPID_SUBJECT", "mailto:admin@localhost"),
	}
	var err error
	if c.StateCacheSize, err = envInt("FINLEDGER_STATE_CACHE_SIZE", 10000); err != nil {
		return c, err
	}
	if c.StateCacheMB, err = envInt("FINLEDGER_STATE_CACHE_MB", 32); err != nil {
		return c, err
	}
	if c.DBMaxConns, err = envInt("FINLEDGER_DB_MAX_CONNS", 32); err != nil {
		return c, err
	}
	if c.RateLimitPerMinute, err = envInt("FINLEDGER_RATE_LIMIT_PER_MINUTE", 1200); err != nil {
		return c, err
	}
	if c.RateLimitBurst, err = envInt("FINLEDGER_RATE_LIMIT_BURST", 600); err != nil {
		return c, err
	}
	switch v := os.Getenv("FINLEDGER_WEBHOOK_ALLOW_PRIVATE"); v {
	case "", "false":
	case "true":
		c.WebhookAllowPriv = true
	default:
		return c, fmt.Errorf("FINLEDGER_WEBHOOK_ALLOW_PRIVATE must be true or false, not %q", v)
	}
	if v := os.Getenv("FINLEDGER_WEBHOOK_RETRY_SCHEDULE"); v != "" {
		if c.WebhookSchedule, err = parseSchedule(v); err != nil {
			return c, err
		}
	}
	if c.Deployment != "" {
		// It names the deployment's stream, subjects and consumers on NATS.
		if _, err := bus.NamesOf(c.Deployment); err != nil {
			return c, fmt.Errorf("FINLEDGER_DEPLOYMENT must be 1 to 32 letters, digits, '-' or '_', not %q", c.Deployment)
		}
	}
	if c.Env != "development" && c.Env != "production" {
		return c, fmt.Errorf("FINLEDGER_ENV must be development or production, not %q", c.Env)
	}
	return c, nil
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
	if c.ChannelSecret != "" && !channel.SecretPattern.MatchString(c.ChannelSecret) {
		problems = append(problems, errors.New("FINLEDGER_CHANNEL_SECRET must be 64 hexadecimal characters"))
	}
	if c.SecretKey != "" {
		if _, err := sealbox.ParseKey(c.SecretKey); err != nil {
			problems = append(problems, errors.New("FINLEDGER_SECRET_KEY must be 64 hexadecimal characters"))
		}
	} else if c.Env == "production" {
		problems = append(problems, errors.New("FINLEDGER_SECRET_KEY is not set: production needs a key (64 hexadecimal characters) to keep secrets with"))
	}
	if (c.VAPIDPublicKey == "") != (c.VAPIDPrivateKey == "") {
		problems = append(problems, errors.New("set both FINLEDGER_VAPID_PUBLIC_KEY and FINLEDGER_VAPID_PRIVATE_KEY, or neither"))
	}
	if !strings.HasPrefix(c.VAPIDSubject, "mailto:") && !strings.HasPrefix(c.VAPIDSubject, "https://") {
		problems = append(problems, errors.New("FINLEDGER_VAPID_SUBJECT must be a mailto: or https: URL"))
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
		return nil, fmt.Errorf("FINLEDGER_WEBHOOK_RETRY_SCHEDULE has %d waits; at most 30", len(parts))
	}
	out := make([]time.Duration, len(parts))
	for i, p := range parts {
		d, err := time.ParseDuration(strings.TrimSpace(p))
		if err != nil || d <= 0 || d > 7*24*time.Hour {
			return nil, fmt.Errorf("FINLEDGER_WEBHOOK_RETRY_SCHEDULE: %q is not a wait from 1ns to 168h (write them like 10s,1m,2h)", p)
		}
		out[i] = d
	}
	return out, nil
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func envInt(name string, fallback int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return fallback, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s must be a positive integer, not %q", name, v)
	}
	return n, nil
}
