package commands

import "github.com/google/uuid"

// CreateTag adds a tag.
type CreateTag struct {
	TagID uuid.UUID
	Name  string
	Color string
}

// Decide checks the tag's name is free and returns its event.
func (c CreateTag) Decide(w *Workspace) ([]NewEvent, error) {
	folded := FoldName(c.Name)
	for _, other := range w.Tags {
		if other.Active && FoldName(other.Name) == folded {
			return nil, Conflict("CONFLICT", "a tag named %q already exists", other.Name)
		}
	}
	return []NewEvent{{TypeTagCreated, &TagCreated{TagID: c.TagID, Name: c.Name, Color: c.Color}}}, nil
}

func (w *Workspace) liveTag(id uuid.UUID) (*Tag, error) {
	tag, ok := w.Tags[id]
	if !ok || !tag.Active {
		return nil, NotFound("TAG_NOT_FOUND", "tag %s not found", id)
	}
	return tag, nil
}
