// Package sealbox keeps small secrets encrypted at rest: AES-256-GCM under the
// service's key, each sealed value bound to the record it belongs to, so a sealed
// value copied onto another record does not open.
package sealbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
)

// KeySize is the length of a key in bytes; settings carry it as 64 hex digits.
const KeySize = 32

// version leads every sealed value, so the scheme can change without ambiguity.
const version byte = 1

// ErrOpen is returned for a sealed value that is damaged, foreign or bound elsewhere.
var ErrOpen = errors.New("sealbox: cannot open sealed value")

// Box seals and opens values under one key. It is safe for concurrent use.
type Box struct {
	aead cipher.AEAD
}

// New returns a box for a 32-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("sealbox: key must be %d bytes, not %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("sealbox: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("sealbox: %w", err)
	}
	return &Box{aead: aead}, nil
}

// ParseKey reads a key written as 64 hexadecimal digits.
func ParseKey(s string) ([]byte, error) {
	key, err := hex.DecodeString(s)
	if err != nil || len(key) != KeySize {
		return nil, fmt.Errorf("sealbox: a key is %d hexadecimal digits", 2*KeySize)
	}
	return key, nil
}

// Seal encrypts plaintext bound to owner (a record's id, say): version, nonce, then
// the ciphertext with its tag.
func (b *Box) Seal(plaintext, owner []byte) []byte {
	out := make([]byte, 1+b.aead.NonceSize(), 1+b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	out[0] = version
	if _, err := rand.Read(out[1:]); err != nil {
		panic("sealbox: no randomness: " + err.Error()) // crypto/rand does not fail on supported systems
	}
	return b.aead.Seal(out, out[1:], plaintext, owner)
}

// Open decrypts a value sealed for owner.
func (b *Box) Open(sealed, owner []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < 1+n+b.aead.Overhead() || sealed[0] != version {
		return nil, ErrOpen
	}
	plaintext, err := b.aead.Open(nil, sealed[1:1+n], sealed[1+n:], owner)
	if err != nil {
		return nil, ErrOpen
	}
	return plaintext, nil
}
