package webhooks

import (
	"testing"
	"time"
)

// The default schedule: the first retry within 10 s, the last about a day after the
// first attempt, every wait within its jitter.
func TestDefaultSchedule(t *testing.T) {
	var least, most time.Duration
	for n, d := range DefaultSchedule {
		least += d - d/5
		most += d
		for range 100 {
			if got := backoff(DefaultSchedule, n); got > d || got < d-d/5 {
				t.Fatalf("retry %d waits %s, scheduled %s", n, got, d)
			}
		}
	}
	if DefaultSchedule[0] > 10*time.Second || least < 20*time.Hour || most > 28*time.Hour {
		t.Fatalf("first retry %s, last between %s and %s", DefaultSchedule[0], least, most)
	}
}

// The signature is the one docs/api.md shows receivers how to check.
func TestSign(t *testing.T) {
	got := Sign([]byte("whsec_test"), time.Unix(1700000000, 0), []byte(`{"a":1}`))
	// echo -n '1700000000.{"a":1}' | openssl dgst -sha256 -hmac whsec_test
	want := "t=1700000000,v1=38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789"
	if got != want {
		t.Fatalf("Sign = %s", got)
	}
}

// The watermark moves over contiguous handled messages only, and jumps to the
// server's ack floor.
func TestWatermark(t *testing.T) {
	d := &Dispatcher{Sender: &Sender{}, mark: watermark{done: 4, handled: map[uint64]bool{}}}
	d.Sender.init()
	steps := []struct {
		floor   uint64
		handled []uint64
		want    uint64
	}{
		{0, []uint64{6, 7}, 4}, // 5 is still out
		{0, []uint64{3}, 4},    // below the mark: nothing
		{0, []uint64{5}, 7},    // the gap closes
		{0, []uint64{9, 10}, 7},
		{8, nil, 10}, // the server passed over 8 (a message never handed out)
		{0, []uint64{11}, 11},
		{5, nil, 11}, // an older floor changes nothing
	}
	for i, st := range steps {
		d.advance(st.floor, st.handled...)
		if got := d.Sender.watermark.Load(); got != st.want || d.mark.done != st.want {
			t.Fatalf("step %d: watermark %d (%d), want %d", i, got, d.mark.done, st.want)
		}
	}
	if len(d.mark.handled) != 0 {
		t.Fatalf("handled left beyond the mark: %v", d.mark.handled)
	}
}
