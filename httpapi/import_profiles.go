package httpapi

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

// importProfileInput reads an import profile's body (bodyRules' ImportProfileSave).
func importProfileInput(b *body, id uuid.UUID, replace bool) domain.SaveImportProfile {
	return domain.SaveImportProfile{ProfileID: id, Replace: replace, Name: importProfileName.read(b).Value,
		WalletID: importProfileWallet.read(b).Ptr(), Mapping: readImportMapping(b, importMapping)}
}

func listImportProfiles(s *Server, w http.ResponseWriter, r *http.Request) {
	q := &query{values: r.URL.Query()}
	wallet := q.id("walletId")
	if err := q.err(); err != nil {
		writeError(w, r, err)
		return
	}
	profiles, err := queries.ImportProfiles(r.Context(), s.pool, activeWorkspace(r), wallet)
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, map[string]any{"profiles": profiles})
}

func createImportProfile(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	cmd := importProfileInput(b, newID(), false)
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("profile", queries.ImportProfileByID(activeWorkspace(r), cmd.ProfileID))})
}

func replaceImportProfile(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := importProfileInput(b, id, true)
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("profile", queries.ImportProfileByID(activeWorkspace(r), id))})
}

func deleteImportProfile(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := domain.DeleteImportProfile{ProfileID: id}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Value(map[string]bool{"ok": true})})
}
