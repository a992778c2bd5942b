package httpapi

import (
	"net/http"

	"github.com/finledger/finledger/commands"
	"github.com/finledger/finledger/queries"
)

const defaultTagColor = "#6b7280"

func createTag(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	name := b.name("name", maxTagName)
	color := b.str("color", 0, 7)
	b.pattern("color", color, hexColor, "#RRGGBB")
	b.required("name", name.Valid)
	cmd := commands.CreateTag{TagID: newID(), Name: name.Value, Color: orDefault(color, defaultTagColor)}
	s.run(w, r, b, command{Decide: cmd.Decide, Status: http.StatusOK, Answer: queries.Record("tag", queries.TagByID(activeWorkspace(r), cmd.TagID))})
}
