package httpapi

import (
	"net/http"

	"github.com/finledger/finledger/commands"
	"github.com/finledger/finledger/queries"
	"github.com/google/uuid"
)

const defaultTagColor = "#6b7280"

func listTags(s *Server, w http.ResponseWriter, r *http.Request) {
	tags, err := queries.Tags(r.Context(), s.pool, principalFrom(r.Context()).Workspace.ID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"tags": tags})
}

func createTag(s *Server, w http.ResponseWriter, r *http.Request) {
	b, err := readBody(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	name := b.str("name", 1, 50)
	color := b.str("color", 0, 7)
	b.pattern("color", color, hexColor, "#RRGGBB")
	b.required("name", name.Valid)
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	cmd := commands.CreateTag{TagID: newID(), Name: name.Value, Color: orDefault(color, defaultTagColor)}
	s.run(w, r, b, command{Decide: cmd.Decide, Status: http.StatusOK,
		Render: renderOne("tag", func(ws uuid.UUID) queries.Lookup[queries.Tag] { return queries.TagByID(ws, cmd.TagID) })})
}
