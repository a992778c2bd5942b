package httpapi

import (
	"net/http"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

func categoryInput(b *body, create bool) domain.UpdateCategory {
	in := domain.UpdateCategory{
		Name:        b.read(categoryName),
		Icon:        b.read(categoryIcon),
		Description: b.read(categoryDescription),
		Color:       b.read(categoryColor),
		IsDefault:   b.boolean("isDefault"),
		TagID:       b.id("tagId"),
	}
	if create {
		b.required("name", in.Name.Valid)
	} else {
		b.notNull("name", "icon", "color", "isDefault")
	}
	return in
}

func createCategory(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	in := categoryInput(b, true)
	cmd := domain.CreateCategory{CategoryID: newID(), CategoryFields: domain.CategoryFields{
		Name: in.Name.Value, Icon: in.Icon.Value, Description: in.Description.Ptr(),
		Color: in.Color.Value, IsDefault: in.IsDefault.Value, TagID: in.TagID.Ptr(),
	}}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("category", queries.CategoryByID(activeWorkspace(r), cmd.CategoryID))})
}

func updateCategory(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := categoryInput(b, false)
	cmd.CategoryID = id
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("category", queries.CategoryByID(activeWorkspace(r), id))})
}

func archiveCategory(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := domain.ArchiveCategory{CategoryID: id}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("category", queries.CategoryByID(activeWorkspace(r), id))})
}
