//go:build linux

package dryrun

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/wardenhq/warden/internal/effect"
	"golang.org/x/sys/unix"
)

// layersIndex is the staging tmpfs's index of overlays (confine.Layers).
const layersIndex = "layers"

// Overlayfs's extended attributes in a user namespace (userxattr).
const opaqueXattr = "user.overlay.opaque"

// layer is one overlay of the view: its upper layer's directory in the
// staging tmpfs and the real directory it covered.
type layer struct {
	upper string // N/u
	host  string
}

// parseLayers parses the staging tmpfs's index: lines "N<TAB>"PATH"", N a
// number, PATH quoted as a Go string, absolute and clean.
func parseLayers(data string) ([]layer, error) {
	var out []layer
	sc := bufio.NewScanner(strings.NewReader(data))
	for sc.Scan() {
		n, quoted, ok := strings.Cut(sc.Text(), "\t")
		host, qerr := strconv.Unquote(quoted)
		if _, err := strconv.ParseUint(n, 10, 32); !ok || err != nil || qerr != nil || !path.IsAbs(host) || path.Clean(host) != host {
			return nil, fmt.Errorf("bad line in the view's index: %q", sc.Text())
		}
		out = append(out, layer{upper: n + "/u", host: host})
	}
	return out, sc.Err()
}

// differ compares upper layers with the real file system.
type differ struct {
	root    string // the staging tmpfs, as a path (/proc/self/fd/N)
	rep     *effect.Report
	ignore  []string
	created map[string]bool // regular files created, for renames
	deleted map[string]bool // regular files deleted, for renames
	// Directories created and deleted, for renames.
	createdDirs, deletedDirs map[string]bool
}

// diff fills rep's file effects from the staging tmpfs view.
func diff(view *os.File, rep *effect.Report, ignore []string) error {
	root := "/proc/self/fd/" + strconv.Itoa(int(view.Fd()))
	index, err := os.ReadFile(root + "/" + layersIndex)
	if err != nil {
		return err
	}
	layers, err := parseLayers(string(index))
	if err != nil {
		return err
	}
	d := &differ{root: root, rep: rep, ignore: ignore, created: map[string]bool{}, deleted: map[string]bool{},
		createdDirs: map[string]bool{}, deletedDirs: map[string]bool{}}
	for _, l := range layers {
		if err := d.dir(l.upper, l.host, false); err != nil {
			return err
		}
	}
	d.renames()
	for _, list := range [][]string{rep.Writes, rep.Creates, rep.Deletes} {
		slices.Sort(list)
	}
	slices.SortFunc(rep.Chmods, func(a, b effect.Chmod) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(rep.Renames, func(a, b effect.Rename) int { return strings.Compare(a.To, b.To) })
	return nil
}

// ignored reports whether host is a path the runner put there.
func (d *differ) ignored(host string) bool {
	for _, p := range d.ignore {
		if host == p || strings.HasPrefix(host, strings.TrimSuffix(p, "/")+"/") {
			return true
		}
	}
	return false
}

// dir walks the upper directory rel (relative to the staging root), which
// shows the real directory host; fresh when everything in it is new.
func (d *differ) dir(rel, host string, fresh bool) error {
	entries, err := os.ReadDir(d.root + "/" + rel)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := d.entry(path.Join(rel, e.Name()), path.Join(host, e.Name()), fresh); err != nil {
			return err
		}
	}
	return nil
}

// entry compares one entry of an upper layer with the real path host.
func (d *differ) entry(rel, host string, fresh bool) error {
	if d.ignored(host) {
		return nil
	}
	var up unix.Stat_t
	if err := unix.Lstat(d.root+"/"+rel, &up); err != nil {
		return err
	}
	var low unix.Stat_t
	lowErr := error(syscall.ENOENT)
	if !fresh {
		lowErr = unix.Lstat(host, &low)
	}
	exists := lowErr == nil
	upType := up.Mode & unix.S_IFMT
	switch {
	case upType == unix.S_IFCHR && up.Rdev == 0: // a whiteout
		if exists {
			d.rep.Deletes = append(d.rep.Deletes, host)
			switch low.Mode & unix.S_IFMT {
			case unix.S_IFREG:
				d.deleted[host] = true
			case unix.S_IFDIR:
				d.deletedDirs[host] = true
			}
		}
		return nil
	case upType == unix.S_IFDIR:
		switch {
		case !exists:
			d.rep.Creates = append(d.rep.Creates, host)
			d.createdDirs[host] = true
			return d.dir(rel, host, true)
		case low.Mode&unix.S_IFMT != unix.S_IFDIR:
			d.rep.Deletes = append(d.rep.Deletes, host)
			d.rep.Creates = append(d.rep.Creates, host)
			return d.dir(rel, host, true)
		}
		d.chmod(host, d.root+"/"+rel, &up, &low)
		if opaque(d.root + "/" + rel) {
			if err := d.hidden(rel, host); err != nil {
				return err
			}
		}
		return d.dir(rel, host, false)
	case !exists:
		d.rep.Creates = append(d.rep.Creates, host)
		if upType == unix.S_IFREG {
			d.created[host] = true
		}
		return nil
	case upType != low.Mode&unix.S_IFMT:
		d.rep.Writes = append(d.rep.Writes, host)
		return nil
	}
	same, err := sameContent(d.root+"/"+rel, host, upType)
	if err != nil {
		return err
	}
	if !same {
		d.rep.Writes = append(d.rep.Writes, host)
	}
	d.chmod(host, d.root+"/"+rel, &up, &low)
	return nil
}

// hidden reports as deleted the entries of the real directory host that
// the opaque upper directory rel hides and does not have itself.
func (d *differ) hidden(rel, host string) error {
	names, err := readNames(host)
	if err != nil {
		return nil // unreadable: nothing to say of it
	}
	for _, name := range names {
		var st unix.Stat_t
		if unix.Lstat(d.root+"/"+rel+"/"+name, &st) == nil {
			continue // in the upper layer too: compared there
		}
		p := path.Join(host, name)
		if d.ignored(p) {
			continue
		}
		d.rep.Deletes = append(d.rep.Deletes, p)
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			d.deleted[p] = true
		}
	}
	return nil
}

// chmod records a change of mode, owner or extended attributes between
// low and up (upper, its path in the upper layer).
func (d *differ) chmod(host, upper string, up, low *unix.Stat_t) {
	if up.Mode&unix.S_IFMT == unix.S_IFLNK {
		return // a link's own mode means nothing
	}
	xattrs := changedXattrs(upper, host)
	if up.Mode == low.Mode && up.Uid == low.Uid && up.Gid == low.Gid && len(xattrs) == 0 {
		return
	}
	c := effect.Chmod{Path: host, Xattrs: xattrs}
	if up.Mode != low.Mode {
		c.Mode = fmt.Sprintf("%04o", up.Mode&0o7777)
		c.Was = fmt.Sprintf("%04o", low.Mode&0o7777)
	}
	if up.Uid != low.Uid {
		uid := int(up.Uid)
		c.UID = &uid
	}
	if up.Gid != low.Gid {
		gid := int(up.Gid)
		c.GID = &gid
	}
	d.rep.Chmods = append(d.rep.Chmods, c)
}

// reportedXattr tells whether an extended attribute's change is an effect
// to report: the user's own attributes, a file capability and access
// control lists; not overlayfs's own (user.overlay.*), and not the
// security modules' labels, which a copy-up may give anew.
func reportedXattr(name string) bool {
	switch {
	case strings.HasPrefix(name, "user.overlay."):
		return false
	case strings.HasPrefix(name, "user."):
		return true
	}
	switch name {
	case "security.capability", "system.posix_acl_access", "system.posix_acl_default":
		return true
	}
	return false
}

// xattrs reads the reported extended attributes of p (not following a
// link), name → value; nil where there are none or they cannot be read.
func xattrs(p string) map[string]string {
	buf := make([]byte, 1024)
	n, err := unix.Llistxattr(p, buf)
	if errors.Is(err, unix.ERANGE) {
		if n, err = unix.Llistxattr(p, nil); err == nil {
			buf = make([]byte, n)
			n, err = unix.Llistxattr(p, buf)
		}
	}
	if err != nil || n <= 0 {
		return nil
	}
	var out map[string]string
	for _, name := range strings.Split(strings.TrimRight(string(buf[:n]), "\x00"), "\x00") {
		if !reportedXattr(name) {
			continue
		}
		v, err := lgetxattr(p, name)
		if err != nil {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[name] = v
	}
	return out
}

// lgetxattr reads one extended attribute's value, whatever its size.
func lgetxattr(p, name string) (string, error) {
	sz, err := unix.Lgetxattr(p, name, nil)
	if err != nil {
		return "", err
	}
	v := make([]byte, sz)
	n, err := unix.Lgetxattr(p, name, v)
	if err != nil {
		return "", err
	}
	return string(v[:min(n, len(v))]), nil
}

// changedXattrs lists, sorted, the reported extended attributes the upper
// copy upper has and the real file host has not, or has with another
// value. An attribute removed in the view is not told apart from one a
// copy-up could not copy, and is not reported.
func changedXattrs(upper, host string) []string {
	up := xattrs(upper)
	if len(up) == 0 {
		return nil
	}
	low := xattrs(host)
	var out []string
	for name, v := range up {
		if w, ok := low[name]; !ok || w != v {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// renames turns a create and a delete of regular files with the same
// contents and mode, or of directories with the same tree, into a rename
// (best-effort: see the package doc).
func (d *differ) renames() {
	d.dirRenames()
	if len(d.created) == 0 || len(d.deleted) == 0 {
		return
	}
	var matched []effect.Rename
	for _, to := range slices.Sorted(maps.Keys(d.created)) {
		for _, from := range slices.Sorted(maps.Keys(d.deleted)) {
			if d.sameFile(to, from) {
				matched = append(matched, effect.Rename{From: from, To: to})
				delete(d.deleted, from)
				break
			}
		}
	}
	for _, m := range matched {
		d.rep.Creates = slices.DeleteFunc(d.rep.Creates, func(p string) bool { return p == m.To })
		d.rep.Deletes = slices.DeleteFunc(d.rep.Deletes, func(p string) bool { return p == m.From })
		d.rep.Renames = append(d.rep.Renames, m)
	}
}

// dirRenames turns a directory created and one deleted with the same
// tree (names, types, contents and modes) into a rename; what lies under
// the new directory is then not reported as created.
func (d *differ) dirRenames() {
	for _, to := range slices.Sorted(maps.Keys(d.createdDirs)) {
		if !d.createdDirs[to] {
			continue // inside a directory matched already
		}
		up, ok := d.upperPath(to)
		if !ok {
			continue
		}
		for _, from := range slices.Sorted(maps.Keys(d.deletedDirs)) {
			budget := 10000
			if !sameTree(up, from, &budget) {
				continue
			}
			delete(d.deletedDirs, from)
			under := func(p string) bool { return p == to || strings.HasPrefix(p, to+"/") }
			d.rep.Creates = slices.DeleteFunc(d.rep.Creates, under)
			d.rep.Deletes = slices.DeleteFunc(d.rep.Deletes, func(p string) bool { return p == from })
			for p := range d.created {
				if under(p) {
					delete(d.created, p)
				}
			}
			for p := range d.createdDirs {
				if under(p) {
					d.createdDirs[p] = false
				}
			}
			d.rep.Renames = append(d.rep.Renames, effect.Rename{From: from, To: to})
			break
		}
	}
}

// sameTree reports whether the directories a and b hold the same tree,
// looking at no more than *budget entries.
func sameTree(a, b string, budget *int) bool {
	na, err1 := readNames(a)
	nb, err2 := readNames(b)
	if err1 != nil || err2 != nil || len(na) != len(nb) {
		return false
	}
	slices.Sort(na)
	slices.Sort(nb)
	if !slices.Equal(na, nb) {
		return false
	}
	for _, n := range na {
		if *budget--; *budget < 0 {
			return false
		}
		var sa, sb unix.Stat_t
		pa, pb := a+"/"+n, b+"/"+n
		if unix.Lstat(pa, &sa) != nil || unix.Lstat(pb, &sb) != nil || sa.Mode != sb.Mode {
			return false
		}
		if sa.Mode&unix.S_IFMT == unix.S_IFDIR {
			if !sameTree(pa, pb, budget) {
				return false
			}
			continue
		}
		if same, err := sameContent(pa, pb, sa.Mode&unix.S_IFMT); err != nil || !same {
			return false
		}
	}
	return true
}

// sameFile reports whether the created file to (in its upper layer) has
// the contents and mode of the real file from.
func (d *differ) sameFile(to, from string) bool {
	up, ok := d.upperPath(to)
	if !ok {
		return false
	}
	a, err1 := os.Lstat(up)
	b, err2 := os.Lstat(from)
	if err1 != nil || err2 != nil || a.Size() != b.Size() || a.Mode() != b.Mode() {
		return false
	}
	same, err := sameContent(up, from, unix.S_IFREG)
	return err == nil && same
}

// upperPath finds host's file in the upper layers.
func (d *differ) upperPath(host string) (string, bool) {
	index, err := os.ReadFile(d.root + "/" + layersIndex)
	if err != nil {
		return "", false
	}
	layers, err := parseLayers(string(index))
	if err != nil {
		return "", false
	}
	best := ""
	for _, l := range layers {
		if host == l.host || strings.HasPrefix(host, strings.TrimSuffix(l.host, "/")+"/") {
			if len(l.host) >= len(best) {
				best = l.host
				rest := strings.TrimPrefix(strings.TrimPrefix(host, l.host), "/")
				p := d.root + "/" + l.upper + "/" + rest
				if _, err := os.Lstat(p); err == nil {
					return p, true
				}
			}
		}
	}
	return "", false
}

// sameContent reports whether the files a and b (of type typ: a regular
// file or a symbolic link) have the same contents or target.
func sameContent(a, b string, typ uint32) (bool, error) {
	if typ == unix.S_IFLNK {
		ta, err1 := os.Readlink(a)
		tb, err2 := os.Readlink(b)
		return err1 == nil && err2 == nil && ta == tb, nil
	}
	if typ != unix.S_IFREG {
		return true, nil // devices, FIFOs, sockets: no contents
	}
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return false, nil
		}
		return false, err
	}
	defer fb.Close()
	sa, _ := fa.Stat()
	sb, _ := fb.Stat()
	if sa.Size() != sb.Size() {
		return false, nil
	}
	ba := make([]byte, 64<<10)
	bb := make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		if ea == io.EOF || ea == io.ErrUnexpectedEOF {
			return eb == io.EOF || eb == io.ErrUnexpectedEOF, nil
		}
		if ea != nil {
			return false, ea
		}
		if eb != nil {
			return false, eb
		}
	}
}

// opaque reports whether the upper directory p hides the real one.
func opaque(p string) bool {
	buf := make([]byte, 8)
	n, err := unix.Lgetxattr(p, opaqueXattr, buf)
	return err == nil && n > 0 && buf[0] == 'y'
}

// readNames lists the directory p.
func readNames(p string) ([]string, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// readPrefix starts the names of the helper's fanotify groups, one per
// watched credential store (confine.ReadPrefix).
const readPrefix = "read:"

// reads returns the watched credential stores the command opened: those
// whose fanotify group, sent by the helper, holds an event; for a
// directory, the files of it opened. Called once the command has ended,
// so that the helper has sent every group.
func reads(receive func(string) (*os.File, error)) []string {
	out := []string{}
	buf := make([]byte, 64<<10)
	for {
		f, err := receive(readPrefix + "*")
		if err != nil {
			break
		}
		store := strings.TrimPrefix(f.Name(), readPrefix)
		for {
			n, err := unix.Read(int(f.Fd()), buf)
			if n <= 0 || err != nil {
				break
			}
			names, ok := fanotifyNames(buf[:n])
			if !ok || len(names) == 0 {
				out = append(out, store) // an event on the store itself
			}
			for _, name := range names {
				out = append(out, path.Join(store, name))
			}
		}
		f.Close()
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// fanotifyNames returns the names of the files that the fanotify events in
// buf (a read from a FAN_REPORT_DFID_NAME group) name, "" where an event
// names none; false when buf is not a whole sequence of events.
func fanotifyNames(buf []byte) ([]string, bool) {
	var names []string
	for len(buf) > 0 {
		if len(buf) < unix.FAN_EVENT_METADATA_LEN {
			return names, false
		}
		eventLen := int(binary.NativeEndian.Uint32(buf[0:4]))
		metaLen := int(binary.NativeEndian.Uint16(buf[6:8]))
		if eventLen < metaLen || metaLen < unix.FAN_EVENT_METADATA_LEN || eventLen > len(buf) {
			return names, false
		}
		info := buf[metaLen:eventLen]
		for len(info) >= 4 {
			typ, recLen := info[0], int(binary.NativeEndian.Uint16(info[2:4]))
			if recLen < 4 || recLen > len(info) {
				return names, false
			}
			// header (4), fsid (8), file_handle: handle_bytes (4),
			// handle_type (4), f_handle, then the name, NUL-terminated.
			if rec := info[:recLen]; typ == unix.FAN_EVENT_INFO_TYPE_DFID_NAME && len(rec) >= 20 {
				hb := int(binary.NativeEndian.Uint32(rec[12:16]))
				if 20+hb > len(rec) || hb < 0 {
					return names, false
				}
				name, _, _ := strings.Cut(string(rec[20+hb:]), "\x00")
				if name != "" && name != "." && !strings.Contains(name, "/") && name != ".." {
					names = append(names, name)
				}
			}
			info = info[recLen:]
		}
		buf = buf[eventLen:]
	}
	return names, true
}
