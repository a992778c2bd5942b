package httpapi

import (
	"net/http"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

// tagInput reads a tag's fields (tagRules).
func tagInput(b *body) domain.UpdateTag {
	return domain.UpdateTag{Name: tagName.read(b), Color: tagColor.read(b)}
}

func createTag(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	in := tagInput(b)
	cmd := domain.CreateTag{TagID: newID(), Name: in.Name.Value, Color: in.Color.Value}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("tag", queries.TagByID(activeWorkspace(r), cmd.TagID))})
}

func updateTag(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := tagInput(b)
	cmd.TagID = id
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("tag", queries.TagByID(activeWorkspace(r), id))})
}

func archiveTag(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := domain.ArchiveTag{TagID: id}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("tag", queries.TagByID(activeWorkspace(r), id))})
}
