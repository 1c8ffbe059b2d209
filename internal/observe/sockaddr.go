package observe

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"path"

	"github.com/wardenhq/warden/internal/effect"
)

// Address families as the kernel numbers them in a struct sockaddr.
const (
	afUnix  = 1
	afInet  = 2
	afInet6 = 10
)

// sockaddrDest decodes raw, a struct sockaddr as a program handed it to
// connect(2) or sendto(2) (its family in host byte order, little-endian
// on the architectures traced), into the destination op tried. A relative
// UNIX socket path is joined to dir, the program's working directory; an
// abstract one is written "@name". It reports false for what names no
// destination (AF_UNSPEC, other families, a short address).
func sockaddrDest(op string, raw []byte, dir string) (effect.Dest, bool) {
	if len(raw) < 2 {
		return effect.Dest{}, false
	}
	d := effect.Dest{Op: op}
	switch binary.LittleEndian.Uint16(raw) {
	case afInet:
		if len(raw) < 8 {
			return d, false
		}
		d.Family = "ip4"
		d.Port = int(binary.BigEndian.Uint16(raw[2:]))
		d.Address = netip.AddrFrom4([4]byte(raw[4:8])).String()
	case afInet6:
		if len(raw) < 24 {
			return d, false
		}
		d.Family = "ip6"
		d.Port = int(binary.BigEndian.Uint16(raw[2:]))
		d.Address = netip.AddrFrom16([16]byte(raw[8:24])).Unmap().String()
	case afUnix:
		name := raw[2:]
		d.Family = "unix"
		switch {
		case len(name) == 0:
			return d, false // an unnamed (autobind) address
		case name[0] == 0:
			d.Address = "@" + string(bytes.TrimRight(name[1:], "\x00"))
		default:
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			p := string(name)
			if !path.IsAbs(p) && dir != "" {
				p = path.Join(dir, p)
			}
			d.Address = p
		}
	default:
		return d, false
	}
	return d, true
}
