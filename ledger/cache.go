package ledger

import (
	"container/list"
	"context"
	"slices"
	"sync"

	"github.com/finledger/finledger/domain"
	"github.com/google/uuid"
)

// stateCache keeps recently used workspace states and serialises the commands of each
// workspace in this process. Entries in use are never evicted; idle ones leave in least
// recently used order once the cache holds more states than its limit, or more bytes
// than its byte limit (as the states' footprints estimate them), except the one used
// last: a workspace bigger than the whole budget still keeps its state while it is
// the one being worked on.
type stateCache struct {
	mu       sync.Mutex
	limit    int
	maxBytes int64 // 0: no limit
	bytes    int64 // the footprints of the states held
	entries  map[uuid.UUID]*cacheEntry
	idle     *list.List // of *cacheEntry with refs == 0, most recently used at the front
}

type cacheEntry struct {
	id    uuid.UUID
	lock  chan struct{} // a one-slot semaphore: unlike a mutex, waiting can be cancelled
	refs  int
	elem  *list.Element
	state *domain.Workspace // guarded by lock; nil until loaded or after a failure
	// snapshotAt is the version of the workspace's latest snapshot this instance knows
	// of (loaded or stored); guarded by lock.
	snapshotAt int64
	// queue holds the commands waiting to be run in a group; guarded by the cache's mu.
	queue []*queuedCall
	// bytes is the footprint of state when the lock was last released; guarded by the
	// cache's mu.
	bytes int64
}

func newStateCache(limit int) *stateCache {
	if limit <= 0 {
		limit = 1
	}
	return &stateCache{limit: limit, entries: map[uuid.UUID]*cacheEntry{}, idle: list.New()}
}

// acquire returns the workspace's entry with its lock held.
func (c *stateCache) acquire(ctx context.Context, id uuid.UUID) (*cacheEntry, error) {
	e := c.enter(id)
	select {
	case e.lock <- struct{}{}:
		return e, nil
	case <-ctx.Done():
		c.drop(e)
		return nil, ctx.Err()
	}
}

// enter returns the workspace's entry, kept in the cache until drop, without its lock.
func (c *stateCache) enter(id uuid.UUID) *cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[id]
	if !ok {
		e = &cacheEntry{id: id, lock: make(chan struct{}, 1)}
		c.entries[id] = e
	}
	if e.elem != nil {
		c.idle.Remove(e.elem)
		e.elem = nil
	}
	e.refs++
	return e
}

// enqueue adds a command to the entry's queue.
func (c *stateCache) enqueue(e *cacheEntry, q *queuedCall) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.queue = append(e.queue, q)
}

// withdraw takes a command out of the entry's queue and reports whether it was still
// there: false once a group has taken it.
func (c *stateCache) withdraw(e *cacheEntry, q *queuedCall) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := slices.Index(e.queue, q)
	if i < 0 {
		return false
	}
	e.queue = slices.Delete(e.queue, i, i+1)
	return true
}

// takeQueue empties the entry's queue of at most limit commands, oldest first, and
// returns them.
func (c *stateCache) takeQueue(e *cacheEntry, limit int) []*queuedCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := min(len(e.queue), limit)
	taken := slices.Clone(e.queue[:n])
	e.queue = slices.Delete(e.queue, 0, n)
	return taken
}

// release unlocks an entry taken by acquire and gives it back.
func (c *stateCache) release(e *cacheEntry) {
	c.unlock(e)
	c.drop(e)
}

// unlock measures the entry's state and releases its lock.
func (c *stateCache) unlock(e *cacheEntry) {
	var size int64
	if e.state != nil {
		size = footprint(e.state)
	}
	c.mu.Lock()
	c.bytes += size - e.bytes
	e.bytes = size
	c.mu.Unlock()
	<-e.lock
}

// drop gives back a reference to an entry whose lock the caller does not hold.
func (c *stateCache) drop(e *cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.refs--
	if e.refs > 0 {
		return
	}
	e.elem = c.idle.PushFront(e)
	for len(c.entries) > c.limit && c.idle.Len() > 0 || c.maxBytes > 0 && c.bytes > c.maxBytes && c.idle.Len() > 1 {
		oldest := c.idle.Remove(c.idle.Back()).(*cacheEntry)
		oldest.elem = nil
		delete(c.entries, oldest.id)
		c.bytes -= oldest.bytes
	}
}

// Estimated bytes a state holds per record: a map entry with its key, the record and
// what its fields point to, as measured on states of realistic workspaces (see
// TestFootprintEstimatesTheHeap).
const (
	stateBaseBytes        = 512
	recordBytes           = 250 // wallet, category, budget, goal, debt, recurring payment, webhook, rule, import profile
	smallRecordBytes      = 100 // member, invitation, API key, tag, import
	transactionBytes      = 250 // a met transaction
	spendingDayBytes      = 140 // one day's spending of a category in a currency
	spendingCurrencyBytes = 300
)

// footprint estimates the bytes of memory the state holds, from how many records of
// each kind it has: cheap enough to run after every command.
func footprint(w *domain.Workspace) int64 {
	n := int64(stateBaseBytes)
	n += recordBytes * int64(len(w.Wallets)+len(w.Categories)+len(w.Budgets)+len(w.Goals)+len(w.Debts)+len(w.Recurring)+len(w.Webhooks)+len(w.ImportProfiles)+len(w.Rules))
	n += smallRecordBytes * int64(len(w.Members)+len(w.Invitations)+len(w.APIKeys)+len(w.Tags)+len(w.Imports))
	n += transactionBytes * int64(len(w.Transactions))
	for _, byCurrency := range w.Spending {
		for _, days := range byCurrency {
			n += spendingCurrencyBytes + spendingDayBytes*int64(len(days))
		}
	}
	return n
}
