package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// meter returns a meter on a clock the test moves.
func meter(tty bool, total int64) (*Meter, *bytes.Buffer, *time.Time) {
	out := &bytes.Buffer{}
	m := New(out, "replay", "events", total)
	clock := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	m.now = func() time.Time { return clock }
	m.start, m.shown, m.tty = clock, clock, tty
	m.every = 5 * time.Second
	if tty {
		m.every = 100 * time.Millisecond
	}
	return m, out, &clock
}

// Off a terminal: a plain line every five seconds at most, then the summary.
func TestPlainLines(t *testing.T) {
	m, out, clock := meter(false, 1_000_000)
	m.Add(1000)
	*clock = clock.Add(time.Second)
	m.Add(1000)
	if out.Len() != 0 {
		t.Fatalf("a line within five seconds: %q", out)
	}
	*clock = clock.Add(4 * time.Second)
	m.Add(248_000)
	want := "replay: 250,000/1,000,000 events (25%), 50,000/s, 15s left\n"
	if out.String() != want {
		t.Fatalf("got %q, want %q", out, want)
	}
	*clock = clock.Add(15 * time.Second)
	if !m.Add(750_000) {
		t.Fatal("the total reached, Add said not")
	}
	m.Finish()
	m.Finish()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || lines[2] != "replay: 1,000,000 events in 20s (50,000/s)" || strings.Contains(out.String(), "\r") {
		t.Fatalf("lines %q", lines)
	}
}

// On a terminal: one line redrawn with a bar, cleared before the summary.
func TestTerminalLine(t *testing.T) {
	m, out, clock := meter(true, 200)
	*clock = clock.Add(time.Second)
	m.Add(50)
	*clock = clock.Add(time.Second)
	m.Add(50)
	if got := out.String(); got != "\r\033[Kreplay [######..................] 50/200 events (25%), 50/s, 3s left"+
		"\r\033[Kreplay [############............] 100/200 events (50%), 50/s, 2s left" {
		t.Fatalf("got %q", got)
	}
	m.Finish()
	if !strings.HasSuffix(out.String(), "\r\033[Kreplay: 100 events in 2s (50/s)\n") {
		t.Fatalf("summary %q", out)
	}
}

// Without a total: the count and the rate.
func TestUnknownTotal(t *testing.T) {
	m, out, clock := meter(false, 0)
	*clock = clock.Add(10 * time.Second)
	m.Add(12_345)
	if out.String() != "replay: 12,345 events, 1,234/s\n" {
		t.Fatalf("got %q", out)
	}
	if IsTerminal(out) {
		t.Fatal("a buffer taken for a terminal")
	}
}
