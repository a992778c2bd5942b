package httpapi

import (
	"embed"
	"net/http"
	"strings"
)

// docsFiles are the API reference, a page that renders the served OpenAPI document in
// the browser. They are part of the binary and
// load nothing from elsewhere.
//
//go:embed docs/index.html docs/*.js docs/*.css
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

// serveHome answers the root address: a browser goes to the web app, anything else
// gets the links to the app, the reference and the document as JSON.
func (s *Server) serveHome() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.browser != nil && strings.Contains(r.Header.Get("Accept"), "text/html") {
			http.Redirect(w, r, "/app/", http.StatusSeeOther)
			return
		}
		links := map[string]string{"name": "Finledger", "docs": "/api/docs", "openapi": "/api/openapi.json"}
		if s.browser != nil {
			links["app"] = "/app/"
		}
		writeJSON(w, http.StatusOK, links)
	}
}
