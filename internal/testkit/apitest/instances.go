package apitest

import (
	"context"
	"time"

	"github.com/finledger/finledger/httpapi"
	"github.com/finledger/finledger/internal/database"
)

// InstanceWith starts another API server on the same database, as Instance does, with
// its options changed by mod.
func (e *Env) InstanceWith(mod func(*httpapi.Options)) *Env {
	e.t.Helper()
	other := *e
	mod(&other.options)
	return other.serve()
}

// InstanceWithTimeouts starts another API server on the same database, as Instance
// does, whose server times out reading a request after read and writing its answer
// after write, as a production server's does.
func (e *Env) InstanceWithTimeouts(read, write time.Duration) *Env {
	e.t.Helper()
	other := *e
	other.timeouts.read, other.timeouts.write = read, write
	return other.serve()
}

// Killable starts another instance, as Instance does, on a database pool of its own,
// and returns it with what kills it the way SIGKILL would: its pool closes first, so
// nothing it does on the way out (ending streams, releasing what it holds) reaches the
// database, then its clients' connections are cut.
func (e *Env) Killable() (*Env, func()) {
	e.t.Helper()
	pool, err := database.Open(context.Background(), e.Pool.Config().ConnString(), 8)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(pool.Close)
	other := *e
	other.Pool = pool
	other.serve()
	return &other, func() {
		pool.Close()
		other.server.CloseClientConnections()
	}
}
