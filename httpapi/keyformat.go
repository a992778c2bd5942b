package httpapi

import (
	"crypto/rand"
	"hash/crc32"
	"math/big"
	"strings"
)

// API key format: a fixed prefix that marks a leaked key as ours to secret scanners,
// 32 random bytes in base62 (43 characters), and a CRC-32 of them (6 characters) so
// that a mistyped or truncated key is refused without a database lookup.
const (
	keyPrefix      = "fl_live_"
	keyBodyLen     = 43
	keyChecksumLen = 6
	keyLen         = len(keyPrefix) + keyBodyLen + keyChecksumLen
	keyShownLen    = len(keyPrefix) + 4 // what listings show of a key
	base62         = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// newKey makes a key and returns it with its shown prefix and its hash.
func newKey() (plaintext, prefix string, hash [32]byte, err error) {
	secret := make([]byte, 32)
	if _, err = rand.Read(secret); err != nil {
		return "", "", hash, err
	}
	body := toBase62(new(big.Int).SetBytes(secret), keyBodyLen)
	plaintext = keyPrefix + body + checksum(body)
	return plaintext, plaintext[:keyShownLen], hashKey(plaintext), nil
}

// parseKey checks a key's shape and checksum and returns its hash.
func parseKey(key string) ([32]byte, bool) {
	if len(key) != keyLen || !strings.HasPrefix(key, keyPrefix) {
		return [32]byte{}, false
	}
	rest := key[len(keyPrefix):]
	for i := 0; i < len(rest); i++ {
		if strings.IndexByte(base62, rest[i]) < 0 {
			return [32]byte{}, false
		}
	}
	body, sum := rest[:keyBodyLen], rest[keyBodyLen:]
	if checksum(body) != sum {
		return [32]byte{}, false
	}
	return hashKey(key), true
}

func checksum(body string) string {
	return toBase62(big.NewInt(int64(crc32.ChecksumIEEE([]byte(body)))), keyChecksumLen)
}

// toBase62 writes n in base62, left-padded with zeros to width characters.
func toBase62(n *big.Int, width int) string {
	out := make([]byte, width)
	base := big.NewInt(62)
	mod := new(big.Int)
	n = new(big.Int).Set(n)
	for i := width - 1; i >= 0; i-- {
		n.DivMod(n, base, mod)
		out[i] = base62[mod.Int64()]
	}
	return string(out)
}
