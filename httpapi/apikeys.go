package httpapi

import (
	"fmt"
	"net/http"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/queries"
)

func createAPIKey(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	name := apiKeyName.read(b)
	description := apiKeyDescription.read(b)
	scopes := apiKeyScopes.read(b)
	expiresAt := apiKeyExpiresAt.read(b)
	for i, scope := range scopes {
		if !domain.KnownScope(scope) {
			b.fail(fmt.Sprintf("scopes[%d]", i), "%q is not a scope", scope)
		}
	}
	plaintext, prefix, hash, err := newKey()
	if err != nil {
		writeError(w, r, err)
		return
	}
	p := principalFrom(r.Context())
	cmd := domain.CreateAPIKey{KeyID: newID(), Name: name.Value, Description: description.Ptr(), Scopes: scopes,
		Prefix: prefix, Hash: hash[:], ExpiresAt: expiresAt.Ptr(), CreatedBy: p.User.ID, Writes: apiKeyWrites.read(b).Value, Now: s.now()}
	s.run(w, r, b, command{Bind: ledger.BindAPIKey(&cmd), Answer: queries.Record("apiKey", queries.APIKeyByID(activeWorkspace(r), cmd.KeyID)),
		// The secret is in this answer only: a replay of the request gets the key without it.
		Secret: map[string]any{"plaintext": plaintext}})
}

func revokeAPIKey(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	p := principalFrom(r.Context())
	cmd := domain.RevokeAPIKey{KeyID: id, ActorID: p.User.ID, ActorRole: p.Workspace.Role}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("apiKey", queries.APIKeyByID(activeWorkspace(r), id))})
}
