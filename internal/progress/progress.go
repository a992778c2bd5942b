// Package progress shows how far a long operation (a replay, a verification) has come:
// on a terminal, one line redrawn in place with a bar, the rate and the time left; to a
// file or a pipe, a plain line every few seconds, so that logs stay readable.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Meter reports the progress of one operation counted in units (events, rows). It is
// safe for use by several goroutines.
type Meter struct {
	w     io.Writer
	tty   bool
	label string
	unit  string
	total int64
	now   func() time.Time
	every time.Duration

	mu       sync.Mutex
	start    time.Time
	shown    time.Time
	done     int64
	drawn    bool
	finished bool
}

// New starts a meter of label's progress towards total units (0: unknown) written to w,
// which is treated as a terminal if it is one.
func New(w io.Writer, label, unit string, total int64) *Meter {
	m := &Meter{w: w, tty: IsTerminal(w), label: label, unit: unit, total: total, now: time.Now}
	m.every = 5 * time.Second
	if m.tty {
		m.every = 100 * time.Millisecond
	}
	m.start = m.now()
	m.shown = m.start
	return m
}

// IsTerminal reports whether w is a character device, such as a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// Add counts n more units done, shows the progress if it is time to, and reports
// whether the total is reached.
func (m *Meter) Add(n int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.done += int64(n)
	if now := m.now(); now.Sub(m.shown) >= m.every && !m.finished {
		m.shown = now
		m.show(now)
	}
	return m.total > 0 && m.done >= m.total
}

// Finish ends the meter's line with a summary of what was done and how fast; a second
// call does nothing.
func (m *Meter) Finish() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.finished {
		return
	}
	m.finished = true
	now := m.now()
	took := now.Sub(m.start)
	if m.tty && m.drawn {
		fmt.Fprint(m.w, "\r\033[K")
	}
	fmt.Fprintf(m.w, "%s: %s %s in %s (%s/s)\n", m.label, count(m.done), m.unit, took.Round(time.Millisecond), count(rate(m.done, took)))
}

func (m *Meter) show(now time.Time) {
	elapsed := now.Sub(m.start)
	speed := rate(m.done, elapsed)
	var line string
	if m.total > 0 {
		part := min(float64(m.done)/float64(m.total), 1)
		left := "?"
		if speed > 0 {
			left = (time.Duration(float64(m.total-m.done)/float64(speed)) * time.Second).Round(time.Second).String()
		}
		line = fmt.Sprintf("%s: %s/%s %s (%.0f%%), %s/s, %s left", m.label, count(m.done), count(m.total), m.unit, 100*part, count(speed), left)
		if m.tty {
			const width = 24
			filled := int(part * width)
			line = fmt.Sprintf("%s [%s%s] %s", m.label, strings.Repeat("#", filled), strings.Repeat(".", width-filled), line[len(m.label)+2:])
		}
	} else {
		line = fmt.Sprintf("%s: %s %s, %s/s", m.label, count(m.done), m.unit, count(speed))
	}
	if m.tty {
		fmt.Fprint(m.w, "\r\033[K"+line)
		m.drawn = true
		return
	}
	fmt.Fprintln(m.w, line)
}

func rate(n int64, d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64(float64(n) / d.Seconds())
}

// count writes n with thousands separated by commas.
func count(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}
