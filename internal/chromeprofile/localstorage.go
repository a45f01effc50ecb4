package chromeprofile

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"

	"github.com/browserd/browserd/internal/storagestate"
)

// maxAreaSize is Chromium's localStorage quota for one origin
// (kPerStorageAreaQuota), counted over encoded keys and values.
const maxAreaSize = 10 << 20

// area is one origin's localStorage, keys in input order.
type area struct {
	origin string // serialized, without a trailing slash
	keys   []string
	values map[string]string
	size   int // Σ len(encoded key) + len(encoded value)
}

// storageAreas normalizes the origins and gathers their localStorage,
// merging repeated origins and keys (the last value wins). Origins Chromium
// would not serve, and items over the quota, are left out with a line in
// skipped; so is sessionStorage, which belongs to a tab, not the profile.
func storageAreas(origins []storagestate.Origin, skipped *[]string) []*area {
	var out []*area
	idx := map[string]*area{}
	for i, o := range origins {
		if len(o.SessionStorage) > 0 {
			*skipped = append(*skipped, fmt.Sprintf("origins[%d] %q: %d sessionStorage items not written: sessionStorage belongs to a tab, not to the profile", i, clip(o.Origin), len(o.SessionStorage)))
		}
		if len(o.LocalStorage) == 0 {
			continue
		}
		origin, why := normalizeOrigin(o.Origin)
		if why != "" {
			*skipped = append(*skipped, fmt.Sprintf("origins[%d] %q: %s", i, clip(o.Origin), why))
			continue
		}
		a := idx[origin]
		if a == nil {
			a = &area{origin: origin, values: map[string]string{}}
			idx[origin] = a
			out = append(out, a)
		}
		for j, it := range o.LocalStorage {
			n := itemSize(it.Name, it.Value)
			old, dup := a.values[it.Name]
			if dup {
				n -= itemSize(it.Name, old)
			}
			if a.size+n > maxAreaSize {
				*skipped = append(*skipped, fmt.Sprintf("origins[%d] %q localStorage[%d] %q: over Chromium's %d-byte localStorage quota for the origin", i, origin, j, clip(it.Name), maxAreaSize))
				continue
			}
			if dup {
				*skipped = append(*skipped, fmt.Sprintf("origins[%d] %q localStorage[%d] %q: replaces an earlier item with the same name", i, origin, j, clip(it.Name)))
			} else {
				a.keys = append(a.keys, it.Name)
			}
			a.values[it.Name] = it.Value
			a.size += n
		}
	}
	kept := out[:0]
	for _, a := range out {
		if len(a.keys) > 0 {
			kept = append(kept, a)
		}
	}
	return kept
}

// itemSize is what an item counts against the quota.
func itemSize(k, v string) int { return encodedLen(k) + encodedLen(v) }

// normalizeOrigin returns origin serialized as Chromium's storage key for
// first-party localStorage: scheme://host[:port], lower case, no default
// port, no trailing slash. It returns why not for an origin that is not
// http(s)://host[:port].
func normalizeOrigin(origin string) (string, string) {
	u, err := url.Parse(origin)
	switch {
	case err != nil:
		return "", "not a URL"
	case u.Scheme != "http" && u.Scheme != "https":
		return "", "not an http or https origin"
	case u.Opaque != "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || (u.Path != "" && u.Path != "/") || u.ForceQuery:
		return "", "want scheme://host[:port] with nothing after it"
	}
	host := u.Hostname()
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			return "", "host is not ASCII; give its punycode (xn--) form"
		}
	}
	host = strings.ToLower(host)
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if why := checkHost(host); why != "" {
		return "", why
	}
	s := u.Scheme + "://" + host
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", "port is not 1 to 65535"
		}
		if !(u.Scheme == "http" && n == 80 || u.Scheme == "https" && n == 443) {
			s += ":" + strconv.Itoa(n)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return "", "empty port"
	}
	return s, ""
}

// Key layout of Chromium's localStorage LevelDB
// (components/services/storage/dom_storage/local_storage_impl.cc).
const (
	versionKey       = "VERSION"
	versionValue     = "1"
	metaPrefix       = "META:"
	metaAccessPrefix = "METAACCESS:"
	itemKeyPrefix    = "_" // kLocalStorageSessionId
	itemKeyDivider   = 0x00
)

// writeLocalStorage creates the LevelDB at path with areas, in one batch,
// and returns the number of items written.
func writeLocalStorage(ctx context.Context, path string, areas []*area, now time.Time) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	db, err := leveldb.OpenFile(path, &opt.Options{ErrorIfExist: true})
	if err != nil {
		return 0, fmt.Errorf("chromeprofile: local storage: %w", err)
	}
	defer db.Close()
	b := new(leveldb.Batch)
	b.Put([]byte(versionKey), []byte(versionValue))
	t := chromeTime(now)
	n := 0
	for _, a := range areas {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		b.Put([]byte(metaPrefix+a.origin), writeMeta(t, uint64(a.size)))
		b.Put([]byte(metaAccessPrefix+a.origin), accessMeta(t))
		prefix := []byte(itemKeyPrefix + a.origin + string(rune(itemKeyDivider)))
		for _, k := range a.keys {
			key := append(prefix[:len(prefix):len(prefix)], encodeString(k)...)
			b.Put(key, encodeString(a.values[k]))
			n++
		}
	}
	if err := db.Write(b, &opt.WriteOptions{Sync: true}); err != nil {
		return 0, fmt.Errorf("chromeprofile: local storage: %w", err)
	}
	if err := db.Close(); err != nil {
		return 0, fmt.Errorf("chromeprofile: local storage: %w", err)
	}
	return n, nil
}

// writeMeta is the LocalStorageAreaWriteMetaData protobuf:
// int64 last_modified = 1; uint64 size_bytes = 2.
func writeMeta(lastModified int64, size uint64) []byte {
	b := []byte{0x08}
	b = binary.AppendUvarint(b, uint64(lastModified))
	b = append(b, 0x10)
	return binary.AppendUvarint(b, size)
}

// accessMeta is the LocalStorageAreaAccessMetaData protobuf:
// int64 last_accessed = 1.
func accessMeta(lastAccessed int64) []byte {
	return binary.AppendUvarint([]byte{0x08}, uint64(lastAccessed))
}

// Blink's StorageFormat, the first byte of a stored key or value.
const (
	formatUTF16  = 0x00
	formatLatin1 = 0x01
)

// encodeString is s as Blink stores a localStorage key or value: 0x01 and
// one byte per character when every character is at most U+00FF, else 0x00
// and UTF-16LE, with surrogate pairs past U+FFFF. Invalid UTF-8 becomes
// U+FFFD.
func encodeString(s string) []byte {
	if isLatin1(s) {
		b := make([]byte, 1, 1+len(s))
		b[0] = formatLatin1
		for _, r := range s {
			b = append(b, byte(r))
		}
		return b
	}
	b := make([]byte, 1, 1+2*len(s))
	b[0] = formatUTF16
	for _, r := range s {
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			b = binary.LittleEndian.AppendUint16(b, uint16(r1))
			b = binary.LittleEndian.AppendUint16(b, uint16(r2))
			continue
		}
		b = binary.LittleEndian.AppendUint16(b, uint16(r))
	}
	return b
}

// encodedLen is len(encodeString(s)).
func encodedLen(s string) int {
	n := 0
	if isLatin1(s) {
		for range s {
			n++
		}
		return 1 + n
	}
	for _, r := range s {
		if r >= 0x10000 {
			n += 4
		} else {
			n += 2
		}
	}
	return 1 + n
}

func isLatin1(s string) bool {
	for _, r := range s {
		if r > 0xFF {
			return false
		}
	}
	return true
}
