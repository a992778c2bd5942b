package httpapi

import (
	"embed"
	"net/http"
	"strings"
)

// docsFiles are the pages for people: the root address's and the API reference, which
// renders the served OpenAPI document in the browser. They are part of the binary and
// load nothing from elsewhere.
//
//go:embed docs/*.html docs/*.js docs/*.css
var docsFiles embed.FS

// docsPolicy lets the pages load only their own scripts, styles and the document.
const docsPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// serveDoc serves one of the embedded files.
func serveDoc(name, contentType string) http.HandlerFunc {
	data, err := docsFiles.ReadFile("docs/" + name)
	if err != nil {
		panic(err) // embedded above: missing only if the build is broken
	}
	return func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", contentType)
		h.Set("Content-Security-Policy", docsPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache")
		_, _ = w.Write(data)
	}
}

// serveHome answers the root address: the web app for a browser (or, without it, a
// page pointing at the reference), the same links as JSON for anything else.
func (s *Server) serveHome() http.HandlerFunc {
	page := serveDoc("home.html", "text/html; charset=utf-8")
	return func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Accept"), "text/html") {
			if s.browser != nil {
				http.Redirect(w, r, "/app/", http.StatusSeeOther)
				return
			}
			page(w, r)
			return
		}
		links := map[string]string{"name": "Finledger", "docs": "/api/docs", "openapi": "/api/openapi.json"}
		if s.browser != nil {
			links["app"] = "/app/"
		}
		writeJSON(w, http.StatusOK, links)
	}
}
