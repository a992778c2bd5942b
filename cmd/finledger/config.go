package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
)

// config is every setting of the binary, read once from FINLEDGER_* variables.
type config struct {
	DatabaseURL        string
	HTTPAddr           string
	Env                string
	DataDir            string
	SessionJWKSURL     string
	SessionHS256Secret string
	SessionIssuer      string
	SessionAudience    string
	StateCacheSize     int
	DBMaxConns         int
	RateLimitPerMinute int
	RateLimitBurst     int
}

func loadConfig() (config, error) {
	c := config{
		DatabaseURL:        os.Getenv("FINLEDGER_DATABASE_URL"),
		HTTPAddr:           envOr("FINLEDGER_HTTP_ADDR", "127.0.0.1:8080"),
		Env:                envOr("FINLEDGER_ENV", "development"),
		DataDir:            envOr("FINLEDGER_DATA_DIR", ".finledger"),
		SessionJWKSURL:     os.Getenv("FINLEDGER_SESSION_JWKS_URL"),
		SessionHS256Secret: os.Getenv("FINLEDGER_SESSION_HS256_SECRET"),
		SessionIssuer:      os.Getenv("FINLEDGER_SESSION_ISSUER"),
		SessionAudience:    os.Getenv("FINLEDGER_SESSION_AUDIENCE"),
	}
	var err error
	if c.StateCacheSize, err = envInt("FINLEDGER_STATE_CACHE_SIZE", 10000); err != nil {
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
	if c.Env != "development" && c.Env != "production" {
		return c, fmt.Errorf("FINLEDGER_ENV must be development or production, not %q", c.Env)
	}
	return c, nil
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
	if c.Env == "production" && c.SessionHS256Secret != "" && len(c.SessionHS256Secret) < 32 {
		problems = append(problems, errors.New("FINLEDGER_SESSION_HS256_SECRET must be at least 32 characters in production"))
	}
	return errors.Join(problems...)
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
