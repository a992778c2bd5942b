package domain

import "github.com/google/uuid"

// DefaultTagColor is the colour of a tag created without one.
const DefaultTagColor = "#6b7280"

// CreateTag adds a tag.
//
// Defaults: Color empty is DefaultTagColor (an empty string is never a valid colour).
//
// Errors: CONFLICT (an active tag already has the name).
type CreateTag struct {
	TagID uuid.UUID
	Name  string
	Color string
}

// Decide fills the default colour, checks the tag's name is free and returns its event.
func (c CreateTag) Decide(w *Workspace) ([]Event, error) {
	if err := w.freeTagName(c.Name, uuid.Nil); err != nil {
		return nil, err
	}
	return []Event{&TagCreated{TagID: c.TagID, Name: c.Name, Color: stringOr(c.Color, DefaultTagColor)}}, nil
}

// UpdateTag renames or recolours a tag.
type UpdateTag struct {
	TagID uuid.UUID
	Name  Nullable[string]
	Color Nullable[string]
}

// Decide checks the new name is free and returns the change, or nothing when the tag
// already is so.
func (c UpdateTag) Decide(w *Workspace) ([]Event, error) {
	tag, err := w.liveTag(c.TagID)
	if err != nil {
		return nil, err
	}
	after := tag.TagFields
	setValue(&after.Name, c.Name)
	setValue(&after.Color, c.Color)
	if after == tag.TagFields {
		return nil, nil
	}
	if err := w.freeTagName(after.Name, c.TagID); err != nil {
		return nil, err
	}
	return []Event{&TagUpdated{TagID: c.TagID, Before: tag.TagFields, After: after}}, nil
}

// ArchiveTag retires a tag: it leaves the listing and cannot be given to anything new,
// while what already carries it keeps it (as with categories).
type ArchiveTag struct {
	TagID uuid.UUID
}

// Decide archives a live tag.
func (c ArchiveTag) Decide(w *Workspace) ([]Event, error) {
	if _, err := w.liveTag(c.TagID); err != nil {
		return nil, err
	}
	return []Event{&TagArchived{TagID: c.TagID}}, nil
}

// freeTagName refuses a name another active tag holds (accents, case and invisible
// characters aside).
func (w *Workspace) freeTagName(name string, self uuid.UUID) error {
	folded := FoldName(name)
	for id, other := range w.Tags {
		if id != self && other.Active && FoldName(other.Name) == folded {
			return Conflict("CONFLICT", "a tag named %q already exists", other.Name)
		}
	}
	return nil
}

func (w *Workspace) liveTag(id uuid.UUID) (*Tag, error) {
	tag, ok := w.Tags[id]
	if !ok || !tag.Active {
		return nil, NotFound("TAG_NOT_FOUND", "tag %s not found", id)
	}
	return tag, nil
}
