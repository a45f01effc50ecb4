package chromeprofile

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb"

	"github.com/browserd/browserd/internal/storagestate"
)

// testNow is a fixed creation time for the unit tests.
var testNow = time.Date(2026, 5, 4, 3, 2, 1, 123456000, time.UTC)

func TestEncodeString(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []byte
	}{
		{"", []byte{0x01}},
		{"hello", []byte{0x01, 'h', 'e', 'l', 'l', 'o'}},
		// Latin-1: é is U+00E9, one byte, not its two UTF-8 bytes.
		{"café", []byte{0x01, 'c', 'a', 'f', 0xe9}},
		{"ÿ", []byte{0x01, 0xff}},
		// U+0100 is past Latin-1: the whole string goes UTF-16LE.
		{"aĀ", []byte{0x00, 'a', 0, 0x00, 0x01}},
		{"привет ✓", []byte{0x00,
			0x3f, 0x04, 0x40, 0x04, 0x38, 0x04, 0x32, 0x04, 0x35, 0x04, 0x42, 0x04,
			0x20, 0x00, 0x13, 0x27}},
		// U+1F600 is the surrogate pair D83D DE00.
		{"a😀", []byte{0x00, 'a', 0, 0x3d, 0xd8, 0x00, 0xde}},
		// Invalid UTF-8 becomes U+FFFD.
		{"\xff", []byte{0x00, 0xfd, 0xff}},
	} {
		got := encodeString(tc.in)
		if !bytes.Equal(got, tc.want) {
			t.Errorf("encodeString(%q) = % x, want % x", tc.in, got, tc.want)
		}
		if n := encodedLen(tc.in); n != len(tc.want) {
			t.Errorf("encodedLen(%q) = %d, want %d", tc.in, n, len(tc.want))
		}
	}
}

func TestChromeTime(t *testing.T) {
	if got := chromeTime(time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC)); got != 0 {
		t.Errorf("1601-01-01 = %d, want 0", got)
	}
	if got := chromeTime(time.Unix(0, 0)); got != 11644473600000000 {
		t.Errorf("Unix epoch = %d, want 11644473600000000", got)
	}
	// 13420000000000000 µs after 1601-01-01 is 2026-04-07T01:46:40Z.
	if got := chromeTime(time.Date(2026, 4, 7, 1, 46, 40, 0, time.UTC)); got != 13420000000000000 {
		t.Errorf("2026-04-07T01:46:40Z = %d, want 13420000000000000", got)
	}
	if got := chromeTime(time.Unix(1, 999)); got != 11644473601000000 {
		t.Errorf("sub-microsecond part not dropped: %d", got)
	}
}

// varint is a protobuf base-128 varint, written out longhand to check
// binary.AppendUvarint against.
func varint(v uint64) []byte {
	var b []byte
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func TestMetaBytes(t *testing.T) {
	ts := chromeTime(testNow)
	// The layout Chromium 156 wrote: 08 <varint last_modified> 10 <varint size_bytes>.
	want := append(append(append([]byte{0x08}, varint(uint64(ts))...), 0x10), varint(33)...)
	if got := writeMeta(ts, 33); !bytes.Equal(got, want) {
		t.Errorf("writeMeta = % x, want % x", got, want)
	}
	// A time in 2026 takes 8 varint bytes; 33 takes one.
	if got := writeMeta(ts, 33); len(got) != 1+8+1+1 || got[9] != 0x10 || got[10] != 33 {
		t.Errorf("writeMeta layout = % x", got)
	}
	if got := writeMeta(ts, 300); !bytes.HasSuffix(got, []byte{0x10, 0xac, 0x02}) {
		t.Errorf("size 300 = % x, want … 10 ac 02", got)
	}
	if got, want := accessMeta(ts), append([]byte{0x08}, varint(uint64(ts))...); !bytes.Equal(got, want) {
		t.Errorf("accessMeta = % x, want % x", got, want)
	}
}

func TestNormalizeOrigin(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://x:1/", "http://x:1"},
		{"http://x:1", "http://x:1"},
		{"https://Example.COM/", "https://example.com"},
		{"http://example.com:80", "http://example.com"},
		{"https://example.com:443/", "https://example.com"},
		{"https://example.com:8443", "https://example.com:8443"},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080"},
		{"http://[::1]:8080/", "http://[::1]:8080"},
		{"http://o1.test:0080", "http://o1.test"},
		{"file:///etc", ""},
		{"http://x/path", ""},
		{"http://x/?q", ""},
		{"http://user@x/", ""},
		{"http://x:99999", ""},
		{"http://x:", ""},
		{"http://", ""},
		{"http://bücher.de", ""},
		{"http://127.1", ""},
		{"not a url", ""},
		{"http://a..b", ""},
	} {
		got, why := normalizeOrigin(tc.in)
		if got != tc.want || (got == "") != (why != "") {
			t.Errorf("normalizeOrigin(%q) = %q, %q; want %q", tc.in, got, why, tc.want)
		}
	}
}

func TestCookieHost(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"example.com", "example.com"},
		{".example.com", ".example.com"},
		{"Example.COM", "example.com"},
		{".Sub_1.example.com", ".sub_1.example.com"},
		{"127.0.0.1", "127.0.0.1"},
		{"[::1]", "[::1]"},
		{"localhost", "localhost"},
		{"", ""},
		{".", ""},
		{"..example.com", ""},
		{"example.com.", ""},
		{"exa mple.com", ""},
		{"example.com:8080", ""},
		{"bücher.de", ""},
		{".127.0.0.1", ""},
		{"127.1", ""},
		{"0x7f.0.0.1", ""},
		{"[::FFFF:1.2.3.4]", ""},
		{"[0:0::1]", ""},
		{"1.2.3.4.5", ""},
		{strings.Repeat("a", 254), ""},
	} {
		got, why := cookieHost(tc.in)
		if got != tc.want || (got == "") != (why != "") {
			t.Errorf("cookieHost(%q) = %q, %q; want %q", tc.in, got, why, tc.want)
		}
	}
}

// TestBuildOddInput checks that cookies Chromium would not load, or that
// would make it drop their site, are skipped with a reason and never stop
// the build.
func TestBuildOddInput(t *testing.T) {
	exp := float64(testNow.Add(time.Hour).Unix())
	good := storagestate.Cookie{Name: "ok", Value: "v", Domain: "good.test", Path: "/", Expires: exp, SameSite: "Lax"}
	odd := []struct {
		c    storagestate.Cookie
		want string // in the Skipped line
	}{
		{storagestate.Cookie{Name: "", Value: "v", Domain: "a.test"}, "empty name"},
		{storagestate.Cookie{Name: "n", Value: "v", Domain: ""}, "empty domain"},
		{storagestate.Cookie{Name: "n", Value: "v", Domain: "."}, "empty domain"},
		{storagestate.Cookie{Name: "n", Value: "v", Domain: "a b.test"}, "character"},
		{storagestate.Cookie{Name: "n", Value: "v", Domain: "a.test/x"}, "character"},
		{storagestate.Cookie{Name: "n", Value: "v", Domain: "bücher.de"}, "punycode"},
		{storagestate.Cookie{Name: "n", Value: "v", Domain: ".10.0.0.1"}, "IP address"},
		{storagestate.Cookie{Name: "n", Value: "v", Domain: "10.1"}, "IPv4"},
		{storagestate.Cookie{Name: "n=x", Value: "v", Domain: "a.test"}, "name has"},
		{storagestate.Cookie{Name: "n;x", Value: "v", Domain: "a.test"}, "name has"},
		{storagestate.Cookie{Name: "n", Value: "v;w", Domain: "a.test"}, "value has"},
		{storagestate.Cookie{Name: "n", Value: "a\x00b", Domain: "a.test"}, "value has"},
		{storagestate.Cookie{Name: "n", Value: "a\tb", Domain: "a.test"}, "value has"},
		{storagestate.Cookie{Name: "n", Value: "a\r\nb", Domain: "a.test"}, "value has"},
		{storagestate.Cookie{Name: " n", Value: "v", Domain: "a.test"}, "space"},
		{storagestate.Cookie{Name: "n", Value: "v ", Domain: "a.test"}, "space"},
		{storagestate.Cookie{Name: "n", Value: "\xff\xfe", Domain: "a.test"}, "UTF-8"},
		{storagestate.Cookie{Name: "n", Value: strings.Repeat("x", 5000), Domain: "a.test"}, "limit"},
		{storagestate.Cookie{Name: strings.Repeat("N", 1<<20), Value: "v", Domain: "a.test"}, "limit"},
		{storagestate.Cookie{Name: "n", Value: "v", Domain: "a.test", Path: "nopath"}, "path"},
		{storagestate.Cookie{Name: "n", Value: "v", Domain: "a.test", Path: "/" + strings.Repeat("p", 2000)}, "path"},
		{storagestate.Cookie{Name: "__Secure-n", Value: "v", Domain: "a.test"}, "__Secure-"},
		{storagestate.Cookie{Name: "__host-n", Value: "v", Domain: "a.test", Secure: true, Path: "/x"}, "__Host-"},
		{storagestate.Cookie{Name: "__Host-n", Value: "v", Domain: ".a.test", Secure: true}, "__Host-"},
		{storagestate.Cookie{Name: "n", Value: "v", Domain: "a.test", Expires: 1}, "expired"},
		{storagestate.Cookie{Name: "n", Value: "v", Domain: "a.test", Expires: float64(testNow.Unix() - 10)}, "expired"},
		{storagestate.Cookie{Name: "n", Value: "v", Domain: "a.test", Expires: nan()}, "not a number"},
	}
	st := &storagestate.State{}
	for _, o := range odd {
		st.Cookies = append(st.Cookies, o.c)
	}
	// A repeat of (domain, name, path): the later one wins.
	st.Cookies = append(st.Cookies, good, storagestate.Cookie{Name: "ok", Value: "second", Domain: "GOOD.test", Expires: -1})
	// Huge, but legal: a 1 MB item is written.
	st.Origins = []storagestate.Origin{
		{Origin: "ftp://x", LocalStorage: []storagestate.NameValue{{Name: "k", Value: "v"}}},
		{Origin: "http://x/", LocalStorage: []storagestate.NameValue{{Name: "big", Value: strings.Repeat("b", 1<<20)}}},
		{Origin: "http://x", LocalStorage: []storagestate.NameValue{{Name: "big", Value: "small"}}, SessionStorage: []storagestate.NameValue{{Name: "s", Value: "v"}}},
		{Origin: "http://empty.test", LocalStorage: []storagestate.NameValue{}},
		{Origin: "http://quota.test", LocalStorage: []storagestate.NameValue{{Name: "a", Value: strings.Repeat("a", 6<<20)}, {Name: "b", Value: strings.Repeat("b", 6<<20)}}},
	}
	dir := filepath.Join(t.TempDir(), "profile")
	res, err := Build(context.Background(), st, dir, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if res.Cookies != 1 || res.Origins != 2 || res.Items != 2 {
		t.Errorf("wrote %d cookies, %d origins, %d items; want 1, 2, 2", res.Cookies, res.Origins, res.Items)
	}
	for i, o := range odd {
		prefix := fmt.Sprintf("cookies[%d] ", i)
		found := ""
		for _, s := range res.Skipped {
			if strings.HasPrefix(s, prefix) {
				found = s
			}
		}
		if !strings.Contains(found, o.want) {
			t.Errorf("cookie %d (%.40q): skipped as %q, want a reason with %q", i, o.c.Name, found, o.want)
		}
		if len(found) > 400 {
			t.Errorf("cookie %d: Skipped line is %d bytes", i, len(found))
		}
	}
	wantLines := []string{
		fmt.Sprintf("cookies[%d] \"ok\" (domain \"good.test\", path \"/\"): replaced by cookies[%d]", len(odd), len(odd)+1),
		`origins[0] "ftp://x": not an http or https origin`,
		`origins[2] "http://x" localStorage[0] "big": replaces an earlier item`,
		`origins[2] "http://x": 1 sessionStorage items not written`,
		`origins[4] "http://quota.test" localStorage[1] "b": over Chromium's`,
	}
	for _, w := range wantLines {
		if !containsPrefix(res.Skipped, w) {
			t.Errorf("Skipped lacks %q", w)
		}
	}
	if n := len(odd) + len(wantLines); len(res.Skipped) != n {
		t.Errorf("%d Skipped lines, want %d:\n%s", len(res.Skipped), n, strings.Join(res.Skipped, "\n"))
	}
	for _, s := range res.Skipped {
		if strings.Contains(s, "second") || strings.Contains(s, "bbbb") {
			t.Errorf("Skipped shows a value: %.100q", s)
		}
	}

	rows := readCookies(t, filepath.Join(dir, "Default", "Cookies"))
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	r := rows[0]
	want := dbRow{Host: "good.test", Name: "ok", Value: "second", Path: "/", EncType: "blob", EncLen: 0,
		Creation: chromeTime(testNow), Expires: 0, Persistent: 0, HasExpires: 0, SameSite: -1, Priority: 1,
		SourceScheme: 1, SourcePort: -1, LastAccess: chromeTime(testNow), LastUpdate: chromeTime(testNow), CrossSite: 1}
	if r != want {
		t.Errorf("row:\n got %+v\nwant %+v", r, want)
	}
	ls := readLevelDB(t, filepath.Join(dir, "Default", "Local Storage", "leveldb"))
	if v := ls["_http://x\x00\x01big"]; v != "\x01small" {
		t.Errorf("http://x big = %.20q", v)
	}
	if _, ok := ls["_http://quota.test\x00\x01a"]; !ok {
		t.Errorf("quota.test lost the item under the quota")
	}
}

func nan() float64 { var z float64; return z / z }

func containsPrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// dbRow is a cookies row as read back.
type dbRow struct {
	Host, Name, Value, Path, EncType             string
	EncLen                                       int
	Creation, Expires, LastAccess, LastUpdate    int64
	Secure, HTTPOnly, Persistent, HasExpires     int
	SameSite, Priority, SourceScheme, SourcePort int
	SourceType, CrossSite                        int
	TopFrame                                     string
}

func readCookies(t testing.TB, path string) []dbRow {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+sqlitePath(path)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var meta []string
	mrows, err := db.Query("SELECT key, value, typeof(value) FROM meta ORDER BY key")
	if err != nil {
		t.Fatal(err)
	}
	for mrows.Next() {
		var k, v, ty string
		mrows.Scan(&k, &v, &ty)
		meta = append(meta, k+"="+v+":"+ty)
	}
	mrows.Close()
	// LONGVARCHAR has text affinity: Chromium's integers are stored as
	// text too.
	if got, want := strings.Join(meta, " "), "last_compatible_version=24:text mmap_status=-1:text version=24:text"; got != want {
		t.Errorf("meta = %s, want %s", got, want)
	}
	rows, err := db.Query(`SELECT host_key, name, value, path, typeof(encrypted_value), length(encrypted_value),
		creation_utc, expires_utc, last_access_utc, last_update_utc, is_secure, is_httponly, is_persistent,
		has_expires, samesite, priority, source_scheme, source_port, source_type, has_cross_site_ancestor,
		top_frame_site_key FROM cookies ORDER BY creation_utc`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []dbRow
	for rows.Next() {
		var r dbRow
		if err := rows.Scan(&r.Host, &r.Name, &r.Value, &r.Path, &r.EncType, &r.EncLen, &r.Creation, &r.Expires,
			&r.LastAccess, &r.LastUpdate, &r.Secure, &r.HTTPOnly, &r.Persistent, &r.HasExpires, &r.SameSite,
			&r.Priority, &r.SourceScheme, &r.SourcePort, &r.SourceType, &r.CrossSite, &r.TopFrame); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func readLevelDB(t testing.TB, path string) map[string]string {
	t.Helper()
	db, err := leveldb.OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m := map[string]string{}
	it := db.NewIterator(nil, nil)
	for it.Next() {
		m[string(it.Key())] = string(it.Value())
	}
	it.Release()
	return m
}

func TestBuildRows(t *testing.T) {
	in := testNow.Add(48 * time.Hour)
	st := &storagestate.State{Cookies: []storagestate.Cookie{
		{Name: "p", Value: "café", Domain: ".Example.com", Path: "/a", Expires: float64(in.UnixMicro()) / 1e6, HTTPOnly: true, Secure: true, SameSite: "Strict"},
		{Name: "far", Value: "x", Domain: "example.com", Path: "/", Expires: float64(testNow.AddDate(3, 0, 0).Unix()), SameSite: "None", Secure: true},
		{Name: "s", Value: "привет ✓", Domain: "example.com", Expires: -1, SameSite: "lax"},
	}}
	dir := t.TempDir()
	res, err := Build(context.Background(), st, dir, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if res.Cookies != 3 || len(res.Skipped) != 0 || res.Dir != dir {
		t.Fatalf("result %+v", res)
	}
	rows := readCookies(t, filepath.Join(dir, "Default", "Cookies"))
	c0 := chromeTime(testNow) - 2
	want := []dbRow{
		{Host: ".example.com", Name: "p", Value: "café", Path: "/a", EncType: "blob", Creation: c0, LastAccess: c0, LastUpdate: c0,
			Expires: chromeTime(in), Secure: 1, HTTPOnly: 1, Persistent: 1, HasExpires: 1, SameSite: 2, Priority: 1,
			SourceScheme: 2, SourcePort: -1, CrossSite: 1},
		// Capped at 400 days after its creation.
		{Host: "example.com", Name: "far", Value: "x", Path: "/", EncType: "blob", Creation: c0 + 1, LastAccess: c0 + 1, LastUpdate: c0 + 1,
			Expires: c0 + 1 + (400 * 24 * time.Hour).Microseconds(), Secure: 1, Persistent: 1, HasExpires: 1, SameSite: 0, Priority: 1,
			SourceScheme: 2, SourcePort: -1, CrossSite: 1},
		{Host: "example.com", Name: "s", Value: "привет ✓", Path: "/", EncType: "blob", Creation: c0 + 2, LastAccess: c0 + 2, LastUpdate: c0 + 2,
			SameSite: 1, Priority: 1, SourceScheme: 1, SourcePort: -1, CrossSite: 1},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, rows[i], want[i])
		}
	}
	// No journal is left behind.
	if _, err := os.Stat(filepath.Join(dir, "Default", "Cookies-journal")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Cookies-journal: %v", err)
	}
}

func TestBuildLocalStorageLayout(t *testing.T) {
	st := &storagestate.State{Origins: []storagestate.Origin{{
		Origin: "http://127.0.0.1:33973/",
		LocalStorage: []storagestate.NameValue{
			{Name: "ascii", Value: "hello"},
			{Name: "uni", Value: "привет ✓"},
		},
	}}}
	dir := t.TempDir()
	res, err := Build(context.Background(), st, dir, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if res.Origins != 1 || res.Items != 2 {
		t.Errorf("result %+v", res)
	}
	got := readLevelDB(t, filepath.Join(dir, "Default", "Local Storage", "leveldb"))
	o := "http://127.0.0.1:33973"
	ts := chromeTime(testNow)
	// The keys and values Chromium 156 wrote for the same items.
	want := map[string]string{
		"VERSION":                 "1",
		"META:" + o:               string(writeMeta(ts, 33)),
		"METAACCESS:" + o:         string(accessMeta(ts)),
		"_" + o + "\x00\x01ascii": "\x01hello",
		"_" + o + "\x00\x01uni":   string(encodeString("привет ✓")),
	}
	if len(got) != len(want) {
		t.Errorf("%d keys, want %d: %q", len(got), len(want), got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%q = %q, want %q", k, got[k], v)
		}
	}
}

func TestBuildDir(t *testing.T) {
	st := makeState(8080, testNow)
	t.Run("not empty", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "x"), nil, 0o600)
		_, err := Build(context.Background(), st, dir, testNow)
		if err == nil || !strings.Contains(err.Error(), "not empty") {
			t.Errorf("err = %v, want a not-empty error", err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("dir touched: %d entries", len(ents))
		}
	})
	t.Run("a file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "f")
		os.WriteFile(path, nil, 0o600)
		if _, err := Build(context.Background(), st, path, testNow); err == nil || !strings.Contains(err.Error(), "not a directory") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("modes", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "a", "b")
		if _, err := Build(context.Background(), st, dir, testNow); err != nil {
			t.Fatal(err)
		}
		var files []string
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				t.Fatal(err)
			}
			fi, _ := d.Info()
			want := fs.FileMode(0o600)
			if d.IsDir() {
				want = fs.ModeDir | 0o700
			} else {
				rel, _ := filepath.Rel(dir, path)
				files = append(files, rel)
			}
			if fi.Mode() != want {
				t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
			}
			return nil
		})
		for _, f := range []string{"Local State", "First Run", "Default/Cookies", "Default/Preferences", "Default/Local Storage/leveldb/CURRENT"} {
			if !contains(files, filepath.FromSlash(f)) {
				t.Errorf("no %s in %q", f, files)
			}
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		dir := filepath.Join(t.TempDir(), "p")
		if _, err := Build(ctx, st, dir, testNow); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v", err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("dir left: %v", err)
		}
	})
	t.Run("cancelled mid-way", func(t *testing.T) {
		for _, after := range []time.Duration{0, time.Millisecond, 3 * time.Millisecond, 10 * time.Millisecond} {
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), after)
			_, err := Build(ctx, st, dir, testNow)
			cancel()
			ents, _ := os.ReadDir(dir)
			if err != nil && len(ents) != 0 {
				t.Errorf("after %v: %v, and %d entries left", after, err, len(ents))
			}
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("after %v: %v", after, err)
			}
		}
	})
	t.Run("nil state", func(t *testing.T) {
		if _, err := Build(context.Background(), nil, t.TempDir(), testNow); err == nil {
			t.Error("no error")
		}
	})
	t.Run("empty state", func(t *testing.T) {
		dir := t.TempDir()
		res, err := Build(context.Background(), &storagestate.State{}, dir, testNow)
		if err != nil || res.Cookies != 0 || res.Origins != 0 {
			t.Fatalf("%+v, %v", res, err)
		}
		if fi, err := os.Stat(filepath.Join(dir, "Default", "Local Storage", "leveldb")); err != nil || !fi.IsDir() {
			t.Errorf("no LevelDB folder: %v", err)
		}
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// testState is 1,000 cookies over 50 sites and localStorage for 50 origins
// http://o<i>.test:<port>, mixing every kind of cookie and string.
func testState(port int) *storagestate.State {
	return makeState(port, time.Now())
}

var (
	testValues = []string{"v%d-plain_ASCII.=~!", "café-%d", "привет ✓ %d", "emoji 😀 %d", "%d"}
	sameSites  = []string{"Strict", "Lax", "None", ""}
)

func makeState(port int, now time.Time) *storagestate.State {
	st := &storagestate.State{}
	for i := range 1000 {
		d := i % 50
		c := storagestate.Cookie{
			Name:     fmt.Sprintf("c%d", i),
			Value:    fmt.Sprintf(testValues[i%len(testValues)], i),
			Domain:   fmt.Sprintf("d%d.test", d),
			Path:     "/",
			HTTPOnly: i%2 == 0,
			Secure:   i%5 < 2,
			SameSite: sameSites[i%len(sameSites)],
			Expires:  -1,
		}
		if i%3 != 0 {
			c.Domain = "." + c.Domain
		}
		if i%7 == 0 {
			c.Path = fmt.Sprintf("/p%d", i%4)
		}
		switch {
		case i%4 == 1: // session
		case i%97 == 0: // past the 400-day cap
			c.Expires = float64(now.AddDate(2, 0, 0).Unix())
		default:
			c.Expires = float64(now.Add(time.Duration(i+1)*time.Hour).UnixMicro()) / 1e6
		}
		if i%11 == 0 {
			c.Name = fmt.Sprintf("nom-é-%d", i)
		}
		st.Cookies = append(st.Cookies, c)
	}
	for i := range 50 {
		o := storagestate.Origin{Origin: fmt.Sprintf("http://o%d.test:%d", i, port)}
		switch i {
		case 1:
			o.Origin += "/"
		case 2:
			o.Origin = fmt.Sprintf("http://O2.Test:%d/", port)
		}
		o.LocalStorage = []storagestate.NameValue{
			{Name: "ascii", Value: fmt.Sprintf("hello %d", i)},
			{Name: "clé", Value: fmt.Sprintf("café %d ÿ", i)},
			{Name: "ключ", Value: fmt.Sprintf("привет ✓ %d", i)},
			{Name: "e😀", Value: fmt.Sprintf("x😀y%d", i)},
			{Name: "empty", Value: ""},
			{Name: "json", Value: fmt.Sprintf(`{"token":"abc%d","n":[1,2,3]}`, i)},
		}
		st.Origins = append(st.Origins, o)
	}
	return st
}

func BenchmarkBuild(b *testing.B) {
	st := testState(8080)
	root := b.TempDir()
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		dir := filepath.Join(root, fmt.Sprint(i))
		res, err := Build(ctx, st, dir, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		if res.Cookies != 1000 || res.Items != 300 {
			b.Fatalf("%+v", res)
		}
	}
}
