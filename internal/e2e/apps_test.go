//go:build linux

package e2e

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/browserd/browserd/internal/freeport"
)

// The real-application corpus (issue 48): current open-source applications
// none of us wrote — MediaWiki, DokuWiki, Django's admin, Adminer — from
// Debian's packages (scripts/install-apps.sh), each served on 127.0.0.1
// from a fresh copy of its state for every task, and everyday tasks on
// them driven by the conformance corpus's scripted agent through browserd
// and through Playwright MCP. A task is scored from the application's own
// state — its database, its files, its API — never from the page.
//
// `make conformance-apps` runs it (BROWSERD_APPS=1); it is not part of
// `make test`. Each class of miss it found has a drill in `make test` on a
// page of our own (TestHandSeesOverflow, TestEditableDocuments, …).

// appTask is one task on one application.
type appTask struct {
	app, task string
	what      string                           // what it asks, as a user would
	run       func(a *agent, x *app) error     // the agent's way through
	score     func(t *testing.T, x *app) error // the application's state says it is done
}

func (c appTask) key() string { return c.app + ":" + c.task }

// app is one running instance of an application, with fresh state.
type app struct {
	name string
	url  string // its base URL, ending in /
	dir  string // its state: databases, files
	cmd  *exec.Cmd
}

// open has the agent navigate to a path of the application.
func (a *agent) openApp(x *app, path string) error {
	_, err := a.saw(a.tool.navigate(x.url + strings.TrimPrefix(path, "/")))
	return err
}

// db opens one of the application's SQLite databases, read-only.
func (x *app) db(t *testing.T, file string) *sql.DB {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(x.dir, file)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// one reads one value of a query, or "" when there is no row.
func one(t *testing.T, db *sql.DB, q string, args ...any) string {
	var v sql.NullString
	err := db.QueryRow(q, args...).Scan(&v)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		t.Fatalf("%s: %v", q, err)
	}
	return v.String
}

// getJSON reads a JSON answer of the application's API into out.
func (x *app) getJSON(path string, out any) error {
	resp, err := http.Get(x.url + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s: %v: %.200s", path, err, b)
	}
	return nil
}

// need fails when a condition of the score does not hold.
func need(ok bool, format string, args ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, args...)
}

// appsDir is the corpus's own files: the Django project, Adminer's
// wrapper, the seeds.
func appsDir(t *testing.T) string {
	d, err := filepath.Abs("testdata/apps")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// run runs a set-up command and fails the test with its output.
func runIn(t *testing.T, dir string, env []string, stdin string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// serve starts an application's server in dir (x.dir when "") and waits
// until path answers. Its output goes to x.dir/server.log.
func serve(t *testing.T, x *app, dir string, env []string, path string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = cmp.Or(dir, x.dir)
	cmd.Env = append(os.Environ(), env...)
	log, err := os.Create(filepath.Join(x.dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", x.name, err)
	}
	x.cmd = cmd
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		log.Close()
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(x.url + path)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(x.dir, "server.log"))
			t.Fatalf("%s did not answer at %s: %v\n%s", x.name, x.url+path, err, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// newApp makes an instance's folder and address.
func newApp(t *testing.T, name string) *app {
	addr := freeport.Addr(t)
	return &app{name: name, url: "http://" + addr + "/", dir: t.TempDir()}
}

func addrOf(x *app) string { u, _ := url.Parse(x.url); return u.Host }

// startApp starts a fresh instance of the named application.
func startApp(t *testing.T, name string) *app {
	switch name {
	case "mediawiki":
		return startMediaWiki(t)
	case "django":
		return startDjango(t)
	case "adminer":
		return startAdminer(t)
	case "dokuwiki":
		return startDokuWiki(t)
	}
	t.Fatalf("no application %q", name)
	return nil
}

const appPassword = "Admin-pass-2026"

// startMediaWiki installs MediaWiki (Debian's /usr/share/mediawiki) on
// SQLite in a fresh folder and seeds its pages, a vandal's edit among them.
func startMediaWiki(t *testing.T) *app {
	x := newApp(t, "mediawiki")
	mw := "/usr/share/mediawiki"
	conf := filepath.Join(x.dir, "LocalSettings.php")
	env := []string{"MW_CONFIG_FILE=" + conf}
	runIn(t, x.dir, nil, "", "php", mw+"/maintenance/install.php", "--dbtype", "sqlite", "--dbpath", x.dir,
		"--dbname", "wiki", "--server", strings.TrimSuffix(x.url, "/"), "--scriptpath", "", "--confpath", x.dir,
		"--pass", appPassword, "--lang", "en", "Team Wiki", "Admin")
	f, err := os.OpenFile(conf, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// No account creation captcha, no e-mail, English dates: a plain wiki.
	fmt.Fprint(f, "\n$wgEnableEmail = false;\n$wgGroupPermissions['*']['createaccount'] = false;\n")
	f.Close()
	runIn(t, x.dir, env, "", "php", mw+"/maintenance/createAndPromote.php", "Vandal", "Vandal-pass-2026")
	edit := func(user, title, summary, text string) {
		runIn(t, x.dir, env, text, "php", mw+"/maintenance/edit.php", "--user", user, "--summary", summary, title)
	}
	edit("Admin", "Solar System", "start", solarSystem)
	edit("Admin", "Paris", "start", paris)
	edit("Vandal", "Paris", "improved", "PARIS IS BORING. Nothing to see here.\n")
	edit("Admin", "Draft plan", "start", "The plan for next year: hire two people, move the office.\n")
	edit("Admin", "Quokka", "start", "The quokka, the short-tailed scrub wallaby, lives on Rottnest Island.\n")
	edit("Admin", "Wombat", "start", "Wombats are short-legged marsupials.\n")
	serve(t, x, "", env, "index.php", "php", "-S", addrOf(x), "-t", mw)
	return x
}

const solarSystem = `The Solar System is the Sun and the objects that orbit it.

== Planets ==
There are eight planets.

== History ==
Early astronomers saw five planets with the naked eye.

== Exploration ==
Probes have visited every planet.
`

const paris = `Paris is the capital of France.

It lies on the Seine.
`

// mwPage is the current text and last summary of a wiki page, from its API
// ("" when the page does not exist).
func mwPage(x *app, title string) (text, summary string, err error) {
	var r struct {
		Query struct {
			Pages []struct {
				Missing   bool `json:"missing"`
				Revisions []struct {
					Comment string `json:"comment"`
					Slots   struct {
						Main struct {
							Content string `json:"content"`
						} `json:"main"`
					} `json:"slots"`
				} `json:"revisions"`
			} `json:"pages"`
		} `json:"query"`
	}
	q := url.Values{"action": {"query"}, "prop": {"revisions"}, "titles": {title}, "rvslots": {"main"},
		"rvprop": {"content|comment"}, "format": {"json"}, "formatversion": {"2"}}
	if err := x.getJSON("api.php?"+q.Encode(), &r); err != nil {
		return "", "", err
	}
	if len(r.Query.Pages) == 0 || r.Query.Pages[0].Missing || len(r.Query.Pages[0].Revisions) == 0 {
		return "", "", nil
	}
	rev := r.Query.Pages[0].Revisions[0]
	return rev.Slots.Main.Content, rev.Comment, nil
}

// startDjango runs a newsroom's back office — Django's own admin (Debian's
// python3-django) over the corpus's models — on a fresh SQLite database.
func startDjango(t *testing.T) *app {
	x := newApp(t, "django")
	proj := filepath.Join(appsDir(t), "django")
	env := []string{"NEWSROOM_DB=" + filepath.Join(x.dir, "db.sqlite3"), "PYTHONDONTWRITEBYTECODE=1",
		"DJANGO_SUPERUSER_PASSWORD=" + appPassword}
	py := "/usr/bin/python3"
	runIn(t, proj, env, "", py, "manage.py", "migrate", "-v0")
	seed, err := os.ReadFile(filepath.Join(proj, "seed.py"))
	if err != nil {
		t.Fatal(err)
	}
	runIn(t, proj, env, string(seed), py, "manage.py", "shell")
	runIn(t, proj, env, "", py, "manage.py", "createsuperuser", "--noinput", "--username", "admin", "--email", "admin@example.org")
	serve(t, x, proj, env, "admin/login/", py, "manage.py", "runserver", "--noreload", "--insecure", addrOf(x))
	return x
}

// startAdminer serves Adminer (Debian's package) over a fresh SQLite
// shop database, through the corpus's wrapper that accepts one login.
func startAdminer(t *testing.T) *app {
	x := newApp(t, "adminer")
	seed, err := os.ReadFile(filepath.Join(appsDir(t), "adminer", "seed.sql"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(x.dir, "shop.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(string(seed)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	serve(t, x, "", nil, "", "php", "-S", addrOf(x), "-t", filepath.Join(appsDir(t), "adminer"))
	return x
}

// startDokuWiki serves DokuWiki (Debian's /usr/share/dokuwiki) with its
// configuration and pages in a fresh folder (DOKU_CONF set before its own
// preload), one admin user, and pages committed with their history.
func startDokuWiki(t *testing.T) *app {
	x := newApp(t, "dokuwiki")
	conf := filepath.Join(x.dir, "conf")
	data := filepath.Join(x.dir, "data")
	runIn(t, x.dir, nil, "", "cp", "-r", "/etc/dokuwiki", conf)
	runIn(t, x.dir, nil, "", "cp", "-r", "/var/lib/dokuwiki/data", data)
	for _, d := range []string{"pages", "attic", "meta", "media", "media_attic", "media_meta", "index", "cache", "locks", "tmp", "log"} {
		_ = os.MkdirAll(filepath.Join(data, d), 0o755)
	}
	write := func(path, s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(conf, "local.php"), fmt.Sprintf(`<?php
$conf['title'] = 'Team Wiki';
$conf['savedir'] = %q;
$conf['useacl'] = 1;
$conf['superuser'] = '@admin';
$conf['userewrite'] = 0;
$conf['breadcrumbs'] = 0;
$conf['updatecheck'] = 0;
`, data))
	out, err := exec.Command("php", "-r", `echo password_hash($argv[1], PASSWORD_BCRYPT);`, appPassword).Output()
	if err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(conf, "users.auth.php"), "admin:"+string(out)+":Admin:admin@example.org:admin,user\n")
	write(filepath.Join(conf, "acl.auth.php"), "*\t@ALL\t1\n*\t@user\t8\n")
	prepend := filepath.Join(x.dir, "prepend.php")
	write(prepend, fmt.Sprintf("<?php\ndefine('DOKU_CONF', %q);\ndefine('DOKU_MAIN_CONF', %q);\n", conf+"/", conf+"/"))
	php := []string{"-d", "auto_prepend_file=" + prepend}
	commit := func(page, summary, text string) {
		f := filepath.Join(x.dir, "in.txt")
		write(f, text)
		runIn(t, x.dir, nil, "", "php", append(php, "/usr/share/dokuwiki/bin/dwpage.php", "commit", "-m", summary, f, page)...)
	}
	commit("team:onboarding", "start", "====== Onboarding ======\nWelcome to the team.\n\n===== First week =====\nMeet the team and set up your laptop.\n\n===== Tools =====\nWe use the wiki and the tracker.\n")
	commit("team:holidays", "start", "====== Holidays ======\nThe office closes from 24 December to 1 January.\n")
	time.Sleep(1100 * time.Millisecond) // a revision is named by its second
	commit("team:holidays", "cleanup", "Nobody gets holidays.\n")
	commit("team:kitchen", "start", "====== Kitchen ======\nThe coffee machine is descaled on Fridays.\n")
	// The search index, which a page's first view would build.
	runIn(t, x.dir, nil, "", "php", append(php, "/usr/share/dokuwiki/bin/indexer.php", "-q")...)
	serve(t, x, "", nil, "doku.php", "php", append(php, "-S", addrOf(x), "-t", "/usr/share/dokuwiki")...)
	return x
}

// dwPage is the current text of a DokuWiki page ("" when it does not exist).
func dwPage(x *app, id string) string {
	b, _ := os.ReadFile(filepath.Join(x.dir, "data", "pages", strings.ReplaceAll(id, ":", "/")+".txt"))
	return string(b)
}

// appsEnabled skips unless the corpus was asked for (make conformance-apps).
func appsEnabled(t *testing.T) {
	if os.Getenv("BROWSERD_APPS") == "" {
		t.Skip("the real-application corpus runs with make conformance-apps (BROWSERD_APPS=1)")
	}
	for _, bin := range []string{"php", "/usr/bin/python3"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is missing: run scripts/install-apps.sh (make conformance-apps does)", bin)
		}
	}
}

// runApps drives the selected tasks one at a time, each on a fresh
// instance of its application, with the tools newTool makes, and scores
// each from the application's state.
func runApps(t *testing.T, newTool func(i int) confTool) map[string]confResult {
	out := map[string]confResult{}
	for i, c := range appTasks {
		if !confSelected(c.app) && !confSelected(c.key()) {
			continue
		}
		t.Run(c.key(), func(t *testing.T) {
			x := startApp(t, c.app)
			tl := newTool(i)
			start := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- c.run(&agent{tool: tl}, x) }()
			var err error
			select {
			case err = <-done:
			case <-ctx.Done():
				err = errors.New("the task took more than 3 minutes")
			}
			if err == nil {
				if serr := c.score(t, x); serr != nil {
					err = fmt.Errorf("the application's state is not the task's goal: %w", serr)
				}
			}
			r := confResult{pass: err == nil, err: err, ms: time.Since(start).Milliseconds()}
			if errors.Is(err, errUnsupported) {
				r = confResult{err: err}
			}
			out[c.key()] = r
			if err != nil {
				t.Logf("%s with %s: %v", c.key(), tl.name(), err)
			}
		})
	}
	return out
}

// TestConformanceApps drives every task of the real-application corpus
// through browserd's MCP server.
func TestConformanceApps(t *testing.T) {
	appsEnabled(t)
	d := newMCPDriver(t, confFlags...)
	res := runApps(t, func(i int) confTool { return &browserdTool{t: t, d: d, task: fmt.Sprintf("app%d", i)} })
	reportApps(t, "browserd", res)
}

// TestConformanceAppsPlaywright drives the same tasks through Playwright
// MCP, for the comparison in docs/conformance.md.
func TestConformanceAppsPlaywright(t *testing.T) {
	appsEnabled(t)
	res := runApps(t, playwrightTools(t))
	reportApps(t, "playwright-mcp", res)
}

func reportApps(t *testing.T, tool string, res map[string]confResult) {
	passed := 0
	var rows []confRow
	for _, c := range appTasks {
		r, ran := res[c.key()]
		if !ran {
			continue
		}
		if r.pass {
			passed++
		}
		rows = append(rows, newConfRow(tool, "apps/"+c.key(), c.app+": "+c.what, r))
	}
	t.Logf("%s finished %d of %d real-application tasks", tool, passed, len(res))
	writeRows(t, rows)
}
