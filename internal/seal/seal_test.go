package seal

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestG15_KeyCreatedPrivateOnFirstUseAndKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", "keys", "override.key")
	var wg sync.WaitGroup
	keys := make([]*Key, 8)
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := LoadOrCreate(path)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for _, k := range keys[1:] {
		if string(k.k) != string(keys[0].k) {
			t.Fatal("two processes got different keys")
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != KeySize {
		t.Fatalf("key file %v %v", fi.Mode(), err)
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Errorf("key directory mode %v", di.Mode().Perm())
	}
	mac := keys[0].Sum([]byte("override"), []byte("r1-d1"))
	if !keys[0].Verify(mac, []byte("override"), []byte("r1-d1")) {
		t.Error("a MAC does not verify")
	}
	for _, parts := range [][][]byte{{[]byte("override"), []byte("r1-d2")}, {[]byte("overrider1-d1")}, {[]byte("override"), []byte("r1-d1"), nil}} {
		if keys[0].Verify(mac, parts...) {
			t.Errorf("the MAC verifies for %q", parts)
		}
	}
	other, _ := NewKey(make([]byte, KeySize))
	if other.Verify(mac, []byte("override"), []byte("r1-d1")) {
		t.Error("a MAC verifies under another key")
	}
	if keys[0].Verify("zz", []byte("override")) || keys[0].Verify("", []byte("override")) {
		t.Error("garbage verifies")
	}

	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreate(path); err == nil {
		t.Error("a key others may read was accepted")
	}
	link := filepath.Join(filepath.Dir(path), "link.key")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreate(link); err == nil {
		t.Error("a key through a symbolic link was accepted")
	}
}

// L8: a derived key is a different key per label, and Hash is HMAC under
// the key itself.
func TestL8_DeriveSeparatesPurposes(t *testing.T) {
	k, err := NewKey(bytes.Repeat([]byte{7}, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	a, b := k.Derive("warden/transcript/v1"), k.Derive("warden/other/v1")
	msg := []byte("line")
	if a.Sum(msg) == b.Sum(msg) || a.Sum(msg) == k.Sum(msg) {
		t.Fatal("derived keys for different labels give the same MAC")
	}
	if a.Sum(msg) != k.Derive("warden/transcript/v1").Sum(msg) {
		t.Fatal("Derive is not deterministic")
	}
	h := k.Hash()
	h.Write(msg)
	want := hmac.New(sha256.New, bytes.Repeat([]byte{7}, KeySize))
	want.Write(msg)
	if !hmac.Equal(h.Sum(nil), want.Sum(nil)) {
		t.Fatal("Hash is not HMAC-SHA256 under the key")
	}
}

// G16: a key file with another name (a hard link, which the sandbox does
// not hide) is never used: LoadOrCreate makes a new key in its place, and
// the other name keeps the old one, under which nothing verifies.
func TestG16_LinkedKeyIsReplaced(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "keys", "override.key")
	old, err := LoadOrCreate(path)
	if err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(dir, "planted")
	if err := os.Link(path, planted); err != nil {
		t.Skipf("no hard links: %v", err)
	}
	k, err := LoadOrCreate(path)
	if err != nil {
		t.Fatal(err)
	}
	mac := old.Sum([]byte("denial"))
	if k.Verify(mac, []byte("denial")) {
		t.Error("the exposed key is still in use")
	}
	again, err := LoadOrCreate(path)
	if err != nil || !again.Verify(k.Sum([]byte("x")), []byte("x")) {
		t.Errorf("the new key is not kept: %v", err)
	}
	if b, _ := os.ReadFile(planted); len(b) != KeySize {
		t.Errorf("the planted name lost its bytes")
	}
}
