package ledger

import (
	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
)

// Upcaster decodes the log for readers that keep no workspace state (replay and
// verify), each event in the shape it has today (domain.Upcaster), so it must see every
// event of the log, each stream in version order.
type Upcaster struct {
	upcaster *domain.Upcaster
}

// NewUpcaster returns an Upcaster that has seen no event yet.
func NewUpcaster() *Upcaster { return &Upcaster{upcaster: domain.NewUpcaster()} }

// Decode parses a stored event into its typed struct (a pointer), like
// domain.DecodeEvent, in today's shape.
func (u *Upcaster) Decode(e eventstore.RecordedEvent) (any, error) {
	data, err := domain.DecodeEvent(e.Type, e.Data)
	if err != nil {
		return nil, err
	}
	u.upcaster.Upcast(e.StreamID, data)
	return data, nil
}
