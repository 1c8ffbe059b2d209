// Package seal authenticates the records of warden's protected state that
// only warden's own channels may create — a person's override of a denial,
// its use, the denials themselves (SPEC G12, G15) — with HMAC-SHA256 under
// a key kept in warden's home, so that a record written into a transcript
// by anything else (the agent, a command it ran) is refused when read.
package seal

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/wardenhq/warden/internal/wardenhome"
)

// KeySize is the size of a key in bytes.
const KeySize = 32

// Key is an HMAC-SHA256 key. Its zero value is not usable; make one with
// NewKey or LoadOrCreate.
type Key struct {
	k []byte
}

// NewKey returns a key of the given bytes (at least 16).
func NewKey(b []byte) (*Key, error) {
	if len(b) < 16 {
		return nil, fmt.Errorf("seal: a key of %d bytes is too short", len(b))
	}
	return &Key{k: append([]byte(nil), b...)}, nil
}

// Sum returns the hex MAC of parts, each length-prefixed so that no two
// lists of parts give the same message.
func (k *Key) Sum(parts ...[]byte) string {
	m := hmac.New(sha256.New, k.k)
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		m.Write(n[:])
		m.Write(p)
	}
	return hex.EncodeToString(m.Sum(nil))
}

// Derive returns the key for one purpose, named by label:
// HMAC-SHA256(k, label) as key bytes. MACs under keys of different labels
// are unrelated, so a MAC made for one purpose never passes for another.
func (k *Key) Derive(label string) *Key {
	m := hmac.New(sha256.New, k.k)
	m.Write([]byte(label))
	return &Key{k: m.Sum(nil)}
}

// Hash returns a new HMAC-SHA256 hash under k, for a caller that MACs many
// messages and resets it between them.
func (k *Key) Hash() hash.Hash { return hmac.New(sha256.New, k.k) }

// Verify reports whether mac is the MAC of parts, in constant time.
func (k *Key) Verify(mac string, parts ...[]byte) bool {
	got, err := hex.DecodeString(mac)
	if err != nil || len(got) != sha256.Size {
		return false
	}
	want, _ := hex.DecodeString(k.Sum(parts...))
	return hmac.Equal(got, want)
}

// Nonce returns 16 random bytes in hex.
func Nonce() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("seal: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// LoadOrCreate returns the key stored at path, creating it on first use: a
// file of KeySize random bytes, mode 0600, in a directory created 0700. A
// key file that is not a regular file, that others may read or write, or
// that has the wrong size is an error, never replaced. A key file with
// another name (a hard link, wardenhome.Exposed) is never used: it is
// removed, a new key is made in its place, and stderr says so.
func LoadOrCreate(path string) (*Key, error) {
	var err error
	for attempt := 0; attempt < 50; attempt++ {
		var k *Key
		k, err = load(path)
		switch {
		case err == nil:
			return k, nil
		case errors.Is(err, errShort):
			time.Sleep(10 * time.Millisecond) // written by hand, or being written
		case errors.Is(err, os.ErrNotExist), errors.Is(err, errRetired):
			if cerr := create(path); cerr != nil && !errors.Is(cerr, os.ErrExist) {
				return nil, cerr
			}
		default:
			return nil, err
		}
	}
	return nil, err
}

var errShort = errors.New("seal: the key file is shorter than a key")

// errRetired is the error of a key file that had another name: it was
// removed, and a new key is to be made.
var errRetired = errors.New("seal: the key was exposed and removed")

func load(path string) (*Key, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("seal: key: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("seal: key: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("seal: key %s is not a regular file", path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("seal: key %s may be read or written by others (mode %v); it must be 0600", path, fi.Mode().Perm())
	}
	// A key with another name may be read through it, wherever it lies
	// (SPEC G16): it is never used, and a new key replaces it.
	exposed, err := wardenhome.Exposed(f)
	if err != nil {
		return nil, fmt.Errorf("seal: key: %w", err)
	}
	if exposed {
		if err := wardenhome.Retire(path, f, "warden's key"); err != nil {
			return nil, fmt.Errorf("seal: %w", err)
		}
		return nil, errRetired
	}
	b, err := io.ReadAll(io.LimitReader(f, KeySize+1))
	if err != nil {
		return nil, fmt.Errorf("seal: key: %w", err)
	}
	switch {
	case len(b) < KeySize:
		return nil, fmt.Errorf("%w: %s", errShort, path)
	case len(b) > KeySize:
		return nil, fmt.Errorf("seal: key %s is longer than a key", path)
	}
	return &Key{k: b}, nil
}

// create writes a new key to path atomically: a complete file appears at
// path, or nothing does. It fails with os.ErrExist when path exists.
func create(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("seal: key directory: %w", err)
	}
	b := make([]byte, KeySize)
	if _, err := rand.Read(b); err != nil {
		return fmt.Errorf("seal: %w", err)
	}
	if err := wardenhome.CreateSecret(path, ".key-*", b); err != nil {
		if errors.Is(err, os.ErrExist) {
			return err
		}
		return fmt.Errorf("seal: key: %w", err)
	}
	return nil
}
