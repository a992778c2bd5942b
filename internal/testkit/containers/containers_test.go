package containers

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestOnFreePortMovesOnFromATakenPort(t *testing.T) {
	var tried []int
	port, err := onFreePort(func(port int) error {
		tried = append(tried, port)
		if len(tried) == 1 {
			return &PortTakenError{Server: "PostgreSQL", Port: port}
		}
		return nil
	})
	if err != nil || len(tried) != 2 || port != tried[1] || tried[0] == tried[1] {
		t.Fatalf("onFreePort = %d, %v after trying %v; want the second of two different ports", port, err, tried)
	}

	tried = nil
	_, err = onFreePort(func(port int) error {
		tried = append(tried, port)
		return &PortTakenError{Server: "NATS", Port: port}
	})
	var taken *PortTakenError
	if !errors.As(err, &taken) || len(tried) != portAttempts || taken.Port != tried[len(tried)-1] {
		t.Fatalf("every port taken: %v after trying %v; want a PortTakenError after %d ports", err, tried, portAttempts)
	}

	boom := errors.New("no such image")
	tried = nil
	if _, err := onFreePort(func(port int) error { tried = append(tried, port); return boom }); !errors.Is(err, boom) || len(tried) != 1 {
		t.Fatalf("another failure: %v after trying %v; want it at once", err, tried)
	}
}

// A server whose port another process holds fails at once with a PortTakenError that
// names the port and how to see what holds it, rather than waiting out its deadline.
func TestAPortTakenIsNamed(t *testing.T) {
	use, err := Use()
	if err != nil {
		t.Fatal(err)
	}
	if !use {
		t.Skipf("the tests' servers run on the installed binaries here (no Docker engine answers, or %s=off)", Setting)
	}
	t.Cleanup(StopAll)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	ctx := context.Background()
	for server, start := range map[string]func() error{
		"PostgreSQL": func() error { return startPostgres(ctx, port, nil) },
		"NATS": func() error {
			_, err := startNATS(ctx, port)
			return err
		},
	} {
		began := time.Now()
		err := start()
		var taken *PortTakenError
		if !errors.As(err, &taken) || taken.Server != server || taken.Port != port {
			t.Fatalf("%s on a taken port: %v; want a PortTakenError for port %d", server, err, port)
		}
		if msg := err.Error(); !strings.Contains(msg, strconv.Itoa(port)) || !strings.Contains(msg, "ss -ltnp") {
			t.Errorf("%s: the message names neither the port nor how to see who holds it: %s", server, msg)
		}
		if took := time.Since(began); took > 45*time.Second {
			t.Errorf("%s took %s to give up on a taken port", server, took)
		}
	}
}
