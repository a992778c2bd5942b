package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	"github.com/pb33f/libopenapi-validator/content"
	valerrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/finledger/finledger/webapp"
)

// The contract check: every /api request a test sends and every answer it gets is
// checked against the OpenAPI document the server serves, in strict mode, so that a
// route, status, header, content type or body field the document does not describe
// fails the test that made the request. A request the document refuses is fine when
// it was answered with a 4xx (tests send malformed requests on purpose): its answer is
// still checked. A request the document refuses but the server carried out is a
// difference between the two and fails.

// contractChecker validates exchanges against the served document; one is made for
// the whole test binary, since the document does not change.
type contractChecker struct {
	// validating is held around each use of validator: compiling a schema it has not
	// seen renders the document's shared schema nodes, which is not safe for two
	// goroutines at once (two instances answering at once share the checker).
	validating sync.Mutex
	validator  validator.Validator
	model      *v3.Document
}

var (
	contractOnce sync.Once
	contractErr  error
	contract     *contractChecker
)

// maxCheckedBody is how much of an answer the check keeps: the realtime stream is
// endless, and nothing else comes near it.
const maxCheckedBody = 8 << 20

// headersIgnored are the request and answer headers of HTTP itself, which an API
// description does not list. X-Request-Id is not among them: the document declares it.
// Cookie is, since the check takes the cookies it carries one by one.
var headersIgnored = []string{
	"content-type", "content-length", "accept", "accept-encoding", "user-agent", "host", "connection",
	"transfer-encoding", "date", "authorization", "last-event-id", "cache-control",
	// what a proxy in front adds: the client's address, believed of trusted proxies only
	"x-forwarded-for",
	// what a browser adds to every request of the web app
	"cookie", "origin", "referer", "accept-language", "pragma", "priority", "if-none-match",
	"sec-ch-ua", "sec-ch-ua-mobile", "sec-ch-ua-platform", "sec-fetch-dest", "sec-fetch-mode", "sec-fetch-site", "sec-fetch-user",
}

// openMaps are the answers' objects that the document declares as open maps
// (additionalProperties), which strict mode would otherwise report field by field: an
// audit entry's changes and a webhook delivery's payload.
var openMaps = []string{"$.body.entries[*].changes.**", "$.body.delivery.payload.**", "$.body.deliveries[*].payload.**"}

// jsonLines decodes a body of JSON lines (the audit export): every line must be one
// JSON object, and the body as a whole is the string the document describes.
var jsonLines = content.DecoderFunc(func(in *content.DecodeInput) (any, error) {
	body, err := io.ReadAll(in.Body)
	if err != nil {
		return nil, err
	}
	for i, line := range bytes.Split(bytes.TrimSuffix(body, []byte("\n")), []byte("\n")) {
		var object map[string]any
		if len(body) > 0 && json.Unmarshal(line, &object) != nil {
			return nil, fmt.Errorf("line %d is not a JSON object", i+1)
		}
	}
	return string(body), nil
})

// csrfCookie is the web app's readable copy of its CSRF token, which its browser sends
// with every request; the API reads the token from its header, never from the cookie.
const csrfCookie = "$.cookies." + webapp.CSRFCookie

// loadContract reads the document the handler serves and builds its validator.
func loadContract(h http.Handler) (*contractChecker, error) {
	contractOnce.Do(func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/openapi.json", nil))
		if rec.Code != http.StatusOK {
			contractErr = fmt.Errorf("GET /api/openapi.json: status %d", rec.Code)
			return
		}
		doc, err := libopenapi.NewDocument(rec.Body.Bytes())
		if err != nil {
			contractErr = fmt.Errorf("parse the served document: %w", err)
			return
		}
		model, err := doc.BuildV3Model()
		if err != nil {
			contractErr = fmt.Errorf("build the served document: %w", err)
			return
		}
		v, errs := validator.NewValidator(doc, config.WithStrictMode(), config.WithStrictIgnoredHeaders(headersIgnored...),
			config.WithStrictIgnorePaths(append(securityCookies(&model.Model), append(openMaps, csrfCookie)...)...), config.WithFormatAssertions(),
			config.WithBodyDecoder("application/x-ndjson", jsonLines))
		if len(errs) > 0 {
			contractErr = fmt.Errorf("validator of the served document: %v", errs)
			return
		}
		contract = &contractChecker{validator: v, model: &model.Model}
	})
	return contract, contractErr
}

// securityCookies are the paths of the cookies the document's security schemes name:
// credentials it declares, though strict mode counts only the headers of security
// schemes as declared.
func securityCookies(model *v3.Document) []string {
	if model.Components == nil || model.Components.SecuritySchemes == nil {
		return nil
	}
	var paths []string
	for pair := model.Components.SecuritySchemes.First(); pair != nil; pair = pair.Next() {
		if s := pair.Value(); s.Type == "apiKey" && s.In == "cookie" {
			paths = append(paths, "$.cookies."+s.Name)
		}
	}
	return paths
}

// contractLog collects the differences one server's exchanges showed.
type contractLog struct {
	mu       sync.Mutex
	problems []string
}

func (l *contractLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.problems) < 50 {
		l.problems = append(l.problems, fmt.Sprintf(format, args...))
	}
}

func (l *contractLog) report() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.problems
}

// checkContract wraps a server's handler with the contract check; the test fails, once
// its servers are closed, with every difference seen.
func (e *Env) checkContract(h http.Handler) http.Handler {
	c, err := loadContract(h)
	if err != nil {
		e.t.Fatal(err)
	}
	log := &contractLog{}
	t := e.t
	t.Cleanup(func() {
		for _, p := range log.report() {
			t.Errorf("the API answered outside its OpenAPI document: %s", p)
		}
	})
	return checkWith(c, log, h)
}

// checkWith wraps a handler with the check, noting differences in log.
func checkWith(c *contractChecker, log *contractLog, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !c.covers(r.URL.Path) {
			h.ServeHTTP(w, r)
			return
		}
		// The body is kept as the handler reads it, not read ahead of it: a handler
		// that allows a slow upload more time (SetReadDeadline) must see it first.
		var reqBody bytes.Buffer
		body := r.Body
		if body != nil {
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.TeeReader(body, &reqBody), body}
		}
		checked := r.Clone(r.Context())
		rw := &capturingWriter{ResponseWriter: w}
		h.ServeHTTP(rw, r)
		if body != nil {
			_, _ = io.Copy(&reqBody, body) // what the handler left unread, for the check
		}
		if r.Context().Err() != nil && rw.status == 499 {
			// The client went before the answer (a browser leaving a page closes its
			// stream while it opens): nobody read the 499 the server logs it with, and
			// the document describes what clients read.
			return
		}
		checked.Body = io.NopCloser(bytes.NewReader(reqBody.Bytes()))
		c.check(log, checked, reqBody.Bytes(), rw)
	})
}

// covers reports whether the document describes a path: the API, less the document
// and its reference page.
func (c *contractChecker) covers(path string) bool {
	return strings.HasPrefix(path, "/api/") && path != "/api/openapi.json" && path != "/api/docs" && !strings.HasPrefix(path, "/api/docs/")
}

func (c *contractChecker) check(log *contractLog, r *http.Request, reqBody []byte, rw *capturingWriter) {
	status := rw.status
	if status == 0 {
		status, rw.header = http.StatusOK, rw.ResponseWriter.Header().Clone()
	}
	exchange := fmt.Sprintf("%s %s -> %d", r.Method, r.URL.RequestURI(), status)
	res := &http.Response{StatusCode: status, Header: rw.header, Body: io.NopCloser(bytes.NewReader(rw.body.Bytes())), Request: r}

	_, reqErrs := c.validateRequest(r)
	var routeErr *valerrors.ValidationError
	for _, e := range reqErrs {
		if e.ValidationType == helpers.PathValidation || e.ValidationSubType == helpers.ValidationMissingOperation ||
			e.ValidationSubType == helpers.ValidationMissing && e.ValidationType == helpers.PathValidation {
			routeErr = e
		}
	}
	if routeErr != nil {
		// No operation: the answer must be the envelope of an unknown route or method.
		code := map[int]string{http.StatusNotFound: "NOT_FOUND", http.StatusMethodNotAllowed: "METHOD_NOT_ALLOWED"}[status]
		if code == "" || errorCode(rw) != code {
			log.add("%s: undocumented route (%s)", exchange, routeErr.Message)
		}
		return
	}
	reqErrs = c.allowChannel(r, c.allowQueryCredentials(r, reqErrs))
	if len(reqErrs) > 0 && (status < 400 || status >= 500) {
		log.add("%s: the server carried out a request its document refuses: %s", exchange, describe(reqErrs))
	}
	if mt, _, _ := mime.ParseMediaType(rw.header.Get("Content-Type")); mt == "text/event-stream" || rw.truncated || rw.cut {
		// The realtime stream, and an answer kept in part or cut short (its client stopped
		// reading): its status, headers and content type are what can be checked.
		res.Body = io.NopCloser(strings.NewReader(""))
	}
	if _, resErrs := c.validateResponse(r, res); len(resErrs) > 0 {
		log.add("%s: %s; body %.300s", exchange, describe(resErrs), rw.body.Bytes())
	}
}

func (c *contractChecker) validateRequest(r *http.Request) (bool, []*valerrors.ValidationError) {
	c.validating.Lock()
	defer c.validating.Unlock()
	return c.validator.ValidateHttpRequest(r)
}

func (c *contractChecker) validateResponse(r *http.Request, res *http.Response) (bool, []*valerrors.ValidationError) {
	c.validating.Lock()
	defer c.validating.Unlock()
	return c.validator.ValidateHttpResponse(r, res)
}

// allowChannel drops the complaints about the chat channel's identity on operations
// the channel may call besides its own (x-channel-scope): those declare the ordinary
// credentials only, so that no generated client sends two at once, and name the
// channel's access in that extension.
func (c *contractChecker) allowChannel(r *http.Request, errs []*valerrors.ValidationError) []*valerrors.ValidationError {
	if r.Header.Get("X-Channel-Identity") == "" || !c.channelMayCall(r) {
		return errs
	}
	var kept []*valerrors.ValidationError
	for _, e := range errs {
		if e.ValidationType == helpers.SecurityValidation || strings.Contains(e.Message, "X-Channel-Identity") ||
			strings.Contains(e.Reason, "X-Channel-Identity") {
			continue
		}
		kept = append(kept, e)
	}
	return kept
}

// allowQueryCredentials drops strict mode's complaints about a query parameter that one
// of the operation's security schemes carries (the realtime token, the incoming
// webhook's key): strict mode counts such headers as declared, not query parameters.
func (c *contractChecker) allowQueryCredentials(r *http.Request, errs []*valerrors.ValidationError) []*valerrors.ValidationError {
	op := c.operation(r)
	if op == nil {
		return errs
	}
	var carried []string
	for _, req := range op.Security {
		for name := range req.Requirements.KeysFromOldest() {
			if scheme := c.model.Components.SecuritySchemes.GetOrZero(name); scheme != nil && scheme.In == "query" {
				carried = append(carried, "query parameter '"+scheme.Name+"' ")
			}
		}
	}
	var kept []*valerrors.ValidationError
	for _, e := range errs {
		if !slices.ContainsFunc(carried, func(p string) bool { return strings.HasPrefix(e.Message, p) }) {
			kept = append(kept, e)
		}
	}
	return kept
}

// operation finds the request's operation in the document.
func (c *contractChecker) operation(r *http.Request) *v3.Operation {
	var best *v3.PathItem
	bestLiterals := -1
	for path, item := range c.model.Paths.PathItems.FromOldest() {
		if !pathMatches(path, r.URL.Path) {
			continue
		}
		// A literal segment beats a parameter: /api/transactions/bulk is not {id}.
		if literals := strings.Count(path, "/") - strings.Count(path, "{"); literals > bestLiterals {
			best, bestLiterals = item, literals
		}
	}
	if best == nil {
		return nil
	}
	return best.GetOperations().GetOrZero(strings.ToLower(r.Method))
}

// channelMayCall reports whether the request's operation carries x-channel-scope.
func (c *contractChecker) channelMayCall(r *http.Request) bool {
	op := c.operation(r)
	if op == nil || op.Extensions == nil {
		return false
	}
	_, ok := op.Extensions.Get("x-channel-scope")
	return ok
}

// pathMatches matches a path against a template of the document.
func pathMatches(template, path string) bool {
	ts, ps := strings.Split(template, "/"), strings.Split(path, "/")
	if len(ts) != len(ps) {
		return false
	}
	for i := range ts {
		if !strings.HasPrefix(ts[i], "{") && ts[i] != ps[i] {
			return false
		}
	}
	return true
}

func errorCode(rw *capturingWriter) string {
	var env struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(rw.body.Bytes(), &env) != nil || env.Error.Message == "" {
		return ""
	}
	return env.Error.Code
}

func describe(errs []*valerrors.ValidationError) string {
	parts := make([]string, 0, len(errs))
	for _, e := range errs {
		s := e.Message
		if e.Reason != "" {
			s += " (" + e.Reason + ")"
		}
		for _, f := range e.SchemaValidationErrors {
			s += fmt.Sprintf(" [%s: %s]", f.FieldPath, f.Reason)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// capturingWriter passes an answer through and keeps its status, headers and body.
type capturingWriter struct {
	http.ResponseWriter
	status    int
	header    http.Header
	body      bytes.Buffer
	truncated bool
	cut       bool // a write failed: the client went or stopped reading
}

func (w *capturingWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
		w.header = w.ResponseWriter.Header().Clone()
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *capturingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	room := maxCheckedBody - w.body.Len()
	w.body.Write(b[:min(len(b), room)])
	w.truncated = w.truncated || len(b) > room
	n, err := w.ResponseWriter.Write(b)
	w.cut = w.cut || err != nil
	return n, err
}

// Flush and Unwrap let the realtime stream flush and set deadlines through the check.
func (w *capturingWriter) Flush() {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *capturingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
