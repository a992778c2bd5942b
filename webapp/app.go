// Package webapp owns the web app people use in a browser: its pages, scripts and
// styles, embedded in the binary and served under /app/, and the sign-in that gives a
// person a browser session (one click with the development identity, or OpenID Connect
// with PKCE) kept in a cookie. The app's scripts use the public API only; the session
// cookie, with its CSRF token, is one more way to authenticate an API request.
package webapp

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/finledger/finledger/httpapi/session"
	"github.com/finledger/finledger/internal/sealbox"
)

//go:embed assets
var assetFiles embed.FS

// Config wires the app.
type Config struct {
	Sessions *Sessions
	// Box seals the PKCE verifiers of sign-ins under way; needed with OIDC.
	Box *sealbox.Box
	// Dev, when set, is the identity the one-click development sign-in gives.
	Dev *session.Claims
	// OIDC, when set, signs people in with an OpenID Connect provider.
	OIDC *OIDC
	// Secure marks the cookies Secure; false only for development on plain HTTP.
	Secure bool
}

// App serves the web app and its sign-in.
type App struct {
	sessions *Sessions
	box      *sealbox.Box
	dev      *session.Claims
	oidc     *oidcClient
	secure   bool
	assets   map[string]asset
}

// asset is an embedded file ready to serve, with its gzip form and validator.
type asset struct {
	body, gzipped []byte
	contentType   string
	etag          string
}

// New returns the app.
func New(cfg Config) (*App, error) {
	if cfg.Sessions == nil {
		return nil, errors.New("webapp: sessions are required")
	}
	if cfg.OIDC != nil && cfg.Box == nil {
		return nil, errors.New("webapp: OpenID Connect sign-in needs the secret box")
	}
	a := &App{sessions: cfg.Sessions, box: cfg.Box, dev: cfg.Dev, secure: cfg.Secure}
	if cfg.OIDC != nil {
		a.oidc = &oidcClient{cfg: *cfg.OIDC}
	}
	assets, err := loadAssets()
	if err != nil {
		return nil, err
	}
	a.assets = assets
	return a, nil
}

// Sessions returns the store of browser sessions, for the API to authenticate cookies.
func (a *App) Sessions() *Sessions { return a.sessions }

// Routes registers the app's pages and the sign-in on the service's router.
func (a *App) Routes(r chi.Router) {
	r.Get("/app", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/app/", http.StatusMovedPermanently)
	})
	r.Get("/app/*", a.serveApp)
	r.Get("/auth/providers", a.providers)
	r.Post("/auth/dev", a.devSignIn)
	r.Get("/auth/login", a.startOIDC)
	r.Get(CallbackPath, a.callback)
	r.Post("/auth/logout", a.signOut)
}

// appPolicy lets the app load only its own files and call only its own origin; an image
// may also be a blob: the bytes of a receipt the app fetched itself.
const appPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data: blob:; " +
	"manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// serveApp answers a file of the app, or the app's page for any route of the app, which
// its script then draws.
func (a *App) serveApp(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/app/")
	f, ok := a.assets[name]
	if !ok {
		if name != "" && strings.Contains(path.Base(name), ".") {
			http.NotFound(w, r)
			return
		}
		f = a.assets["index.html"]
	}
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("Content-Security-Policy", appPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", f.etag)
	h.Set("Vary", "Accept-Encoding")
	if r.Header.Get("If-None-Match") == f.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := f.body
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		body = f.gzipped
	}
	_, _ = w.Write(body)
}

// providers tells the sign-in page which ways to sign in are on.
func (a *App) providers(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintf(w, `{"dev":%t,"oidc":%t}`, a.dev != nil, a.oidc != nil)
}

// loadAssets reads the embedded files once, with their gzip forms.
func loadAssets() (map[string]asset, error) {
	root, err := fs.Sub(assetFiles, "assets")
	if err != nil {
		return nil, err
	}
	out := map[string]asset{}
	err = fs.WalkDir(root, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(root, name)
		if err != nil {
			return err
		}
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		if _, err := zw.Write(body); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		ct := mime.TypeByExtension(path.Ext(name))
		if ct == "" {
			ct = "application/octet-stream"
		}
		out[name] = asset{body: body, gzipped: gz.Bytes(), contentType: ct, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("webapp: read the embedded assets: %w", err)
	}
	if _, ok := out["index.html"]; !ok {
		return nil, errors.New("webapp: index.html is not embedded")
	}
	return out, nil
}
