package sealbox

import (
	"bytes"
	"errors"
	"testing"
)

func TestSealOpen(t *testing.T) {
	key, err := ParseKey("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
	if err != nil {
		t.Fatal(err)
	}
	box, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	secret, owner := []byte("whsec_0123"), []byte("record-1")
	sealed := box.Seal(secret, owner)
	if bytes.Contains(sealed, secret) {
		t.Fatal("sealed value holds the plaintext")
	}
	if again := box.Seal(secret, owner); bytes.Equal(again, sealed) {
		t.Fatal("two seals of one value are equal: the nonce is not fresh")
	}
	got, err := box.Open(sealed, owner)
	if err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("Open = %q, %v", got, err)
	}

	other, _ := New(bytes.Repeat([]byte{7}, KeySize))
	flipped := bytes.Clone(sealed)
	flipped[len(flipped)-1] ^= 1
	for name, open := range map[string]func() ([]byte, error){
		"other owner": func() ([]byte, error) { return box.Open(sealed, []byte("record-2")) },
		"other key":   func() ([]byte, error) { return other.Open(sealed, owner) },
		"tampered":    func() ([]byte, error) { return box.Open(flipped, owner) },
		"truncated":   func() ([]byte, error) { return box.Open(sealed[:10], owner) },
		"empty":       func() ([]byte, error) { return box.Open(nil, owner) },
		"old version": func() ([]byte, error) { return box.Open(append([]byte{0}, sealed[1:]...), owner) },
	} {
		if _, err := open(); !errors.Is(err, ErrOpen) {
			t.Errorf("%s: err = %v, want ErrOpen", name, err)
		}
	}
}

func TestParseKey(t *testing.T) {
	for _, bad := range []string{"", "00", "zz" + string(bytes.Repeat([]byte("0"), 62)), string(bytes.Repeat([]byte("0"), 66))} {
		if _, err := ParseKey(bad); err == nil {
			t.Errorf("ParseKey(%q) accepted", bad)
		}
	}
	if _, err := New(make([]byte, 16)); err == nil {
		t.Error("New accepted a 16-byte key")
	}
}
