package ledger

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/finledger/finledger/domain"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// household is the state of a workspace with categories categories, expenses spread
// over days days in each, and the last met of them met.
func household(t *testing.T, categories, days, met int) *domain.Workspace {
	t.Helper()
	w := given(t, workspace()...)
	ids := make([]uuid.UUID, categories)
	for i := range ids {
		ids[i] = uuid.New()
		then(t, w, []domain.Event{&domain.CategoryCreated{CategoryID: ids[i],
			CategoryFields: domain.CategoryFields{Name: fmt.Sprintf("Category %d", i), Icon: "tag", Color: "#6366f1"}}})
	}
	first := domain.DateOf(2024, time.January, 1)
	n := 0
	for c, id := range ids {
		for d := range days {
			create := domain.CreateTransaction{TransactionID: uuid.New(), Type: domain.TxExpense, Amount: decimal.New(int64(100+c+d), -2),
				CategoryID: idp(id), WalletID: idp(cash), Date: first.AddDays(d), Today: issued}
			events, err := create.Decide(w)
			if err != nil {
				t.Fatal(err)
			}
			then(t, w, events)
			n++
		}
	}
	// As a cached state does: it keeps only some of the transactions, met since.
	kept := map[uuid.UUID]*domain.Transaction{}
	for id, tx := range w.Transactions {
		if len(kept) == met {
			break
		}
		kept[id] = tx
	}
	w.Transactions, w.TransactionsPartial = kept, true
	return w
}

// TestFootprintEstimatesTheHeap: the footprint the state cache bounds its memory by is
// within a factor of two of the heap that states of several shapes hold. The heap is
// measured over copies of a state: many of a small one, whose few kilobytes the
// runtime's own allocations would blur, few of a large one, whose 36,520 transactions
// each copy folds anew.
func TestFootprintEstimatesTheHeap(t *testing.T) {
	for _, shape := range []struct {
		name                          string
		categories, days, met, copies int
	}{
		{"a new workspace", 0, 0, 0, 32},
		{"a month of a few categories", 5, 30, 150, 32},
		{"five years of twenty categories, the cache full", 20, 1826, maxMetTransactions, 4},
	} {
		t.Run(shape.name, func(t *testing.T) {
			states := make([]*domain.Workspace, shape.copies)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for i := range states {
				states[i] = household(t, shape.categories, shape.days, shape.met)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			held := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(shape.copies)
			estimate := float64(footprint(states[0]))
			t.Logf("held %.0f bytes a state, estimated %.0f", held, estimate)
			if estimate < held/2 || estimate > held*2 {
				t.Errorf("footprint %.0f bytes, the heap holds %.0f a state", estimate, held)
			}
			runtime.KeepAlive(states)
		})
	}
}

// TestStateCacheBoundedInBytes: idle states leave, least recently used first, once the
// cache holds more bytes than its limit; the state used last stays, however big.
func TestStateCacheBoundedInBytes(t *testing.T) {
	ctx := t.Context()
	big := household(t, 2, 400, 0)
	size := footprint(big)
	c := newStateCache(100)
	c.maxBytes = 3*size + size/2
	ids := make([]uuid.UUID, 5)
	for i := range ids {
		ids[i] = uuid.New()
		e, err := c.acquire(ctx, ids[i])
		if err != nil {
			t.Fatal(err)
		}
		e.state = big
		c.release(e)
	}
	if len(c.entries) != 3 || c.bytes != 3*size {
		t.Fatalf("%d states of %d bytes in all, want the last 3 of %d bytes each", len(c.entries), c.bytes, size)
	}
	for _, id := range ids[2:] {
		if c.entries[id] == nil {
			t.Fatalf("the state of %s, among the last used, was evicted", id)
		}
	}
	c.maxBytes = size / 2
	last := uuid.New()
	e, err := c.acquire(ctx, last)
	if err != nil {
		t.Fatal(err)
	}
	e.state = big
	c.release(e)
	if len(c.entries) != 1 || c.entries[last] == nil {
		t.Fatalf("%d states held; want only the one used last", len(c.entries))
	}
}
