package latency

import (
	"testing"
	"time"
)

func TestPercentileByNearestRank(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		out := make([]time.Duration, len(ns))
		for i, n := range ns {
			out[i] = time.Duration(n) * time.Millisecond
		}
		return out
	}
	ten := ms(10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
	for _, c := range []struct {
		xs   []time.Duration
		p    float64
		want time.Duration
	}{
		{nil, 50, 0},
		{ms(7), 99, 7 * time.Millisecond},
		{ten, 50, 5 * time.Millisecond},
		{ten, 51, 6 * time.Millisecond},
		{ten, 95, 10 * time.Millisecond},
		{ten, 99, 10 * time.Millisecond},
		{ten, 10, 1 * time.Millisecond},
		{ms(1, 2, 3, 4), 75, 3 * time.Millisecond},
	} {
		if got := Percentile(c.xs, c.p); got != c.want {
			t.Errorf("p%v of %v = %v, want %v", c.p, c.xs, got, c.want)
		}
	}
	if ten[0] != 10*time.Millisecond {
		t.Error("Percentile sorted its argument")
	}
}
