package httpapi

import (
	"net/http"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

// categoryInput reads a category's fields (categoryRules).
func categoryInput(b *body) domain.UpdateCategory {
	in := domain.UpdateCategory{
		Name:        categoryName.read(b),
		Icon:        categoryIcon.read(b),
		Description: categoryDescription.read(b),
		Color:       categoryColor.read(b),
		IsDefault:   categoryIsDefault.read(b),
		TagID:       recordTag.read(b),
	}
	return in
}

func createCategory(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	in := categoryInput(b)
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
	cmd := categoryInput(b)
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
