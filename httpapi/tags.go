package httpapi

import (
	"context"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/commands"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/queries"
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
		Render: func(ctx context.Context, tx pgx.Tx, _ []eventstore.RecordedEvent) (any, error) {
			tag, err := queries.TagByID(ctx, tx, principalFrom(ctx).Workspace.ID, cmd.TagID)
			if err != nil {
				return nil, err
			}
			return map[string]any{"tag": tag}, nil
		}})
}
