package httpapi

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/finledger/finledger/commands"
	"github.com/finledger/finledger/queries"
)

// Category field defaults (spec 2.2).
const (
	defaultCategoryIcon  = "tag"
	defaultCategoryColor = "#6366f1"
)

func categoryInput(b *body, create bool) commands.UpdateCategory {
	in := commands.UpdateCategory{
		Name:        b.str("name", 1, 100),
		Icon:        b.str("icon", 1, 50),
		Description: b.str("description", 0, 255),
		Color:       b.str("color", 0, 7),
		IsDefault:   b.boolean("isDefault"),
		TagID:       b.id("tagId"),
	}
	b.pattern("color", in.Color, hexColor, "#RRGGBB")
	if create {
		b.required("name", in.Name.Valid)
	} else {
		b.notNull("name", "icon", "color", "isDefault")
	}
	return in
}

func listCategories(s *Server, w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	categories, err := queries.Categories(r.Context(), s.pool, p.Workspace.ID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"categories": categories})
}

func createCategory(s *Server, w http.ResponseWriter, r *http.Request) {
	b, err := readBody(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	in := categoryInput(b, true)
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	cmd := commands.CreateCategory{CategoryID: newID(), CategoryFields: commands.CategoryFields{
		Name: in.Name.Value, Icon: orDefault(in.Icon, defaultCategoryIcon), Description: in.Description.Ptr(),
		Color: orDefault(in.Color, defaultCategoryColor), IsDefault: orDefault(in.IsDefault, false), TagID: in.TagID.Ptr(),
	}}
	s.run(w, r, b, command{Decide: cmd.Decide, Status: http.StatusOK, Render: renderCategory(cmd.CategoryID)})
}

func getCategory(s *Server, w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		writeError(w, r, err)
		return
	}
	category, err := queries.CategoryByID(principalFrom(r.Context()).Workspace.ID, id).Get(r.Context(), s.pool)
	if err != nil {
		writeError(w, r, notFoundAs(err, "CATEGORY_NOT_FOUND", "category not found"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"category": category})
}

func updateCategory(s *Server, w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		writeError(w, r, err)
		return
	}
	b, err := readBody(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	cmd := categoryInput(b, false)
	cmd.CategoryID = id
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	s.run(w, r, b, command{Decide: cmd.Decide, Status: http.StatusOK, Render: renderCategory(id)})
}

func archiveCategory(s *Server, w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		writeError(w, r, err)
		return
	}
	b, err := readBody(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	cmd := commands.ArchiveCategory{CategoryID: id}
	s.run(w, r, b, command{Decide: cmd.Decide, Status: http.StatusOK, Render: renderCategory(id)})
}

func renderCategory(id uuid.UUID) render {
	return renderOne("category", func(ws uuid.UUID) queries.Lookup[queries.Category] { return queries.CategoryByID(ws, id) })
}
