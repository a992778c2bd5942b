package bus

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// readyTimeout bounds how long StartEmbedded waits for the server to accept clients;
// recovering a large JetStream store takes longer than a bare start.
const readyTimeout = 10 * time.Second

// Embedded is an in-process NATS server with JetStream whose store lives under a folder.
type Embedded struct {
	srv *server.Server
}

// StartEmbedded starts a NATS server with JetStream storing under dir, listening on a
// free port of 127.0.0.1 only, and returns once it accepts connections. It has no
// authentication: only processes on this machine can reach it.
func StartEmbedded(dir string) (*Embedded, error) {
	opts := &server.Options{
		ServerName: "finledger-embedded",
		Host:       "127.0.0.1",
		Port:       server.RANDOM_PORT,
		JetStream:  true,
		StoreDir:   dir,
		NoSigs:     true,
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("embedded nats: %w", err)
	}
	srv.SetLoggerV2(serverLog{slog.Default().With("component", "nats-server")}, false, false, false)
	srv.Start()
	if !srv.ReadyForConnections(readyTimeout) {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, fmt.Errorf("embedded nats: not ready for connections after %s", readyTimeout)
	}
	if !srv.JetStreamEnabled() {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, fmt.Errorf("embedded nats: jetstream did not start (store %s)", dir)
	}
	return &Embedded{srv: srv}, nil
}

// URL returns the address clients connect to: nats://127.0.0.1:<port>.
func (e *Embedded) URL() string {
	return e.srv.ClientURL()
}

// Shutdown stops the server and waits until it has stopped, its store flushed.
func (e *Embedded) Shutdown() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
}

// serverLog adapts the server's logger to slog. Notices (start-up banners, store
// recovery) are routine and go to debug; warnings and errors keep their level, and a
// "fatal" one is logged rather than ending the process, since StartEmbedded reports
// a server that failed to start as an error.
type serverLog struct {
	log *slog.Logger
}

// Noticef logs a routine server notice at debug.
func (l serverLog) Noticef(format string, v ...any) { l.log.Debug(fmt.Sprintf(format, v...)) }

// Warnf logs a server warning.
func (l serverLog) Warnf(format string, v ...any) { l.log.Warn(fmt.Sprintf(format, v...)) }

// Fatalf logs a fatal server error at error level.
func (l serverLog) Fatalf(format string, v ...any) { l.log.Error(fmt.Sprintf(format, v...)) }

// Errorf logs a server error.
func (l serverLog) Errorf(format string, v ...any) { l.log.Error(fmt.Sprintf(format, v...)) }

// Debugf logs a server debug message.
func (l serverLog) Debugf(format string, v ...any) { l.log.Debug(fmt.Sprintf(format, v...)) }

// Tracef logs a server trace message at debug.
func (l serverLog) Tracef(format string, v ...any) { l.log.Debug(fmt.Sprintf(format, v...)) }
