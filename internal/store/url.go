package store

import (
	"net/url"
	"strings"
)

// IsPostgresURL reports whether db (the --db setting) names a PostgreSQL
// server, postgres:// or postgresql://, rather than a SQLite file.
func IsPostgresURL(db string) bool {
	l := strings.ToLower(db)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// RedactURL returns the URL u with its password, if any, replaced by
// xxxxx, for messages and logs; a URL it cannot read comes back as a
// placeholder, since it may hold a password anywhere.
func RedactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unreadable URL)"
	}
	q := p.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		p.RawQuery = q.Encode()
	}
	return p.Redacted()
}
