package queries

import (
	"testing"
)

// A masked URL keeps its scheme and host, and hides the rest: user-info, path, query
// and fragment may each hold a credential.
func TestMaskURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://hooks.example.com/services/T0/B0/XXXX": "https://hooks.example.com/***",
		"https://example.com/hook?token=abc":            "https://example.com/***",
		"https://user:pass@example.com:8443/":           "https://***@example.com:8443",
		"https://example.com":                           "https://example.com",
		"https://example.com/":                          "https://example.com",
		"https://example.com/?":                         "https://example.com/***",
		"http://127.0.0.1:9/in#frag":                    "http://127.0.0.1:9/***",
		"not a url":                                     "***",
		"https://exa mple.com/x":                        "***",
	} {
		if got := MaskURL(in); got != want {
			t.Errorf("MaskURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// A masked delivery hides, in its attempts, every URL and every part of its webhook's
// URL that a mask hides, wherever the text quotes or echoes it.
func TestMaskedDelivery(t *testing.T) {
	refused := `Post "https://hooks.example.com/in/s3cr3t?token=t0k3n": dial tcp: connection refused; redirected to https://other.example/x?key=k`
	d := Delivery{History: []Attempt{{Error: &refused}, {ResponseBody: "no route for /in/s3cr3t?token=t0k3n"}}}
	got := d.Masked("https://hooks.example.com/in/s3cr3t?token=t0k3n")
	if e := *got.History[0].Error; e != `Post "https://hooks.example.com/***": dial tcp: connection refused; redirected to https://other.example/***` {
		t.Errorf("error %q", e)
	}
	if b := got.History[1].ResponseBody; b != "no route for ***?***" {
		t.Errorf("answer %q", b)
	}
	if *d.History[0].Error != refused {
		t.Error("masking changed the delivery it was given")
	}
}
