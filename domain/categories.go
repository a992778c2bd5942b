package domain

import "github.com/google/uuid"

// Category field defaults (spec 2.2).
const (
	DefaultCategoryIcon  = "tag"
	DefaultCategoryColor = "#6366f1"
)

// CreateCategory adds a category.
//
// Defaults: Icon empty is DefaultCategoryIcon ("tag"); Color empty is
// DefaultCategoryColor; IsDefault left out is false. An empty string is never a valid
// icon or colour, so the zero value stands for a field the client left out.
//
// Errors: TAG_NOT_FOUND, CONFLICT (a live category already has the name).
type CreateCategory struct {
	CategoryID uuid.UUID
	CategoryFields
}

// Decide fills the defaults, checks the category against the workspace and returns its
// event.
func (c CreateCategory) Decide(w *Workspace) ([]Event, error) {
	c.Icon = stringOr(c.Icon, DefaultCategoryIcon)
	c.Color = stringOr(c.Color, DefaultCategoryColor)
	if err := c.check(w, uuid.Nil); err != nil {
		return nil, err
	}
	return []Event{&CategoryCreated{CategoryID: c.CategoryID, CategoryFields: c.CategoryFields}}, nil
}

// UpdateCategory changes some of a category's fields.
type UpdateCategory struct {
	CategoryID  uuid.UUID
	Name        Nullable[string]
	Icon        Nullable[string]
	Description Nullable[string]
	Color       Nullable[string]
	IsDefault   Nullable[bool]
	TagID       Nullable[uuid.UUID]
}

// Decide applies the changes to the category's fields.
func (c UpdateCategory) Decide(w *Workspace) ([]Event, error) {
	category, err := w.liveCategory(c.CategoryID)
	if err != nil {
		return nil, err
	}
	after := category.CategoryFields
	setValue(&after.Name, c.Name)
	setValue(&after.Icon, c.Icon)
	setPtr(&after.Description, c.Description)
	setValue(&after.Color, c.Color)
	setValue(&after.IsDefault, c.IsDefault)
	setPtr(&after.TagID, c.TagID)
	if err := (CreateCategory{CategoryID: c.CategoryID, CategoryFields: after}).check(w, c.CategoryID); err != nil {
		return nil, err
	}
	before := category.CategoryFields
	if after.Name == before.Name && after.Icon == before.Icon && eqPtr(after.Description, before.Description) &&
		after.Color == before.Color && after.IsDefault == before.IsDefault && eqPtr(after.TagID, before.TagID) {
		return nil, nil
	}
	return []Event{&CategoryUpdated{CategoryID: c.CategoryID, Before: before, After: after}}, nil
}

// ArchiveCategory hides a category; transactions keep their category.
type ArchiveCategory struct {
	CategoryID uuid.UUID
}

// Decide archives a live category.
func (c ArchiveCategory) Decide(w *Workspace) ([]Event, error) {
	if _, err := w.liveCategory(c.CategoryID); err != nil {
		return nil, err
	}
	return []Event{&CategoryArchived{CategoryID: c.CategoryID}}, nil
}

func (c CreateCategory) check(w *Workspace, self uuid.UUID) error {
	if c.TagID != nil {
		if _, err := w.liveTag(*c.TagID); err != nil {
			return err
		}
	}
	folded := FoldName(c.Name)
	for id, other := range w.Categories {
		if id != self && !other.Archived && FoldName(other.Name) == folded {
			return Conflict("CONFLICT", "a category named %q already exists", other.Name)
		}
	}
	return nil
}

func (w *Workspace) liveCategory(id uuid.UUID) (*Category, error) {
	category, ok := w.Categories[id]
	if !ok || category.Archived {
		return nil, NotFound("CATEGORY_NOT_FOUND", "category %s not found", id)
	}
	return category, nil
}
