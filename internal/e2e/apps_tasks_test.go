//go:build linux

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The real-application corpus's tasks (apps_test.go): what people ask an
// agent to do in a wiki, an admin site and a database tool, each written
// as a capable agent goes about it — from the application's own pages,
// through the links and buttons a person would use.

// mwLogin logs in to the wiki as its administrator.
func mwLogin(a *agent, x *app) error {
	return steps(func() error { return a.openApp(x, "index.php?title=Special:UserLogin") },
		func() error { return e(a.typeInto("textbox", "Username", "Admin", true, false)) },
		func() error { return e(a.typeInto("textbox", "Password", appPassword, true, false)) },
		func() error { return e(a.click("button", "Log in", none)) })
}

// mwSave saves the edit form open in the wiki, with a summary: "Save
// changes", or "Save page" for a new page.
func mwSave(a *agent, button, summary string) error {
	return steps(func() error { return e(a.typeInto("textbox", "Summary:", summary, true, false)) },
		func() error { return e(a.click("button", button, none)) })
}

var appTasks = []appTask{
	{app: "mediawiki", task: "watch", what: "log in and add a page to the watchlist",
		run: func(a *agent, x *app) error {
			return steps(func() error { return mwLogin(a, x) },
				func() error { return a.openApp(x, "index.php?title=Solar_System") },
				func() error { return e(a.click("link", "Watch", none)) })
		},
		score: func(t *testing.T, x *app) error {
			db := x.db(t, "wiki.sqlite")
			n := one(t, db, `SELECT count(*) FROM watchlist w JOIN user u ON u.user_id = w.wl_user WHERE u.user_name = 'Admin' AND w.wl_title = 'Solar_System' AND w.wl_namespace = 0`)
			return need(n == "1", "Solar System is not on Admin's watchlist")
		}},
	{app: "mediawiki", task: "edit-section", what: "add a sentence to one section of a page, through that section's edit link",
		run: func(a *agent, x *app) error {
			return steps(func() error { return mwLogin(a, x) },
				func() error { return a.openApp(x, "index.php?title=Solar_System") },
				func() error {
					ref, err := a.refAfterRole("History", "link")
					if err != nil {
						return err
					}
					return e(a.saw(a.tool.click(ref, none)))
				},
				func() error {
					return e(a.typeInto("textbox", "Wikitext source editor", "== History ==\nEarly astronomers saw five planets with the naked eye. Galileo saw four moons of Jupiter in 1610.\n", true, false))
				},
				func() error { return mwSave(a, "Save changes", "Galileo") })
		},
		score: func(t *testing.T, x *app) error {
			text, _, err := mwPage(x, "Solar System")
			if err != nil {
				return err
			}
			hist := text[strings.Index(text, "== History =="):]
			return need(strings.Contains(hist, "Galileo saw four moons") && strings.Contains(text, "There are eight planets.") &&
				strings.Contains(text, "Probes have visited every planet.") && strings.Index(text, "Galileo") < strings.Index(text, "== Exploration =="),
				"the History section does not hold the sentence, or another section changed:\n%s", text)
		}},
	{app: "mediawiki", task: "undo", what: "undo a vandal's edit from the page's history",
		run: func(a *agent, x *app) error {
			return steps(func() error { return mwLogin(a, x) },
				func() error { return a.openApp(x, "index.php?title=Paris&action=history") },
				func() error { return e(a.click("link", "undo", none)) },
				func() error { return e(a.click("button", "Save changes", none)) })
		},
		score: func(t *testing.T, x *app) error {
			text, _, err := mwPage(x, "Paris")
			if err != nil {
				return err
			}
			return need(strings.TrimSpace(text) == strings.TrimSpace(paris), "Paris reads:\n%s", text)
		}},
	{app: "mediawiki", task: "move", what: "rename a page (move it) from the page's own menu",
		run: func(a *agent, x *app) error {
			return steps(func() error { return mwLogin(a, x) },
				func() error { return a.openApp(x, "index.php?title=Draft_plan") },
				func() error { return e(a.click("button", "More", none)) },
				func() error { return e(a.click("link", "Move", none)) },
				func() error {
					// A text field, or the combobox the page's script makes
					// of it once it has loaded.
					if _, err := a.find("combobox", "Draft plan"); err == nil {
						return e(a.typeInto("combobox", "Draft plan", "Project plan", true, false))
					}
					return e(a.typeInto("textbox", "Draft plan", "Project plan", true, false))
				},
				func() error { return e(a.click("button", "Move page", none)) })
		},
		score: func(t *testing.T, x *app) error {
			text, _, err := mwPage(x, "Project plan")
			if err != nil {
				return err
			}
			return need(strings.Contains(text, "hire two people"), "no page Project plan with the plan's text: %q", text)
		}},
	{app: "mediawiki", task: "search-categorize", what: "find a page by a phrase it holds and file it under a category",
		run: func(a *agent, x *app) error {
			return steps(func() error { return mwLogin(a, x) },
				func() error { return a.openApp(x, "index.php?title=Main_Page") },
				func() error { return e(a.typeInto("searchbox", "Search Team Wiki", "scrub wallaby", true, true)) },
				func() error { return e(a.click("link", "Quokka", none)) },
				func() error { return e(a.click("link", "Edit", none)) },
				func() error {
					return e(a.typeInto("textbox", "Wikitext source editor", "The quokka, the short-tailed scrub wallaby, lives on Rottnest Island.\n\n[[Category:Marsupials]]\n", true, false))
				},
				func() error { return mwSave(a, "Save changes", "category") })
		},
		score: func(t *testing.T, x *app) error {
			text, _, err := mwPage(x, "Quokka")
			if err != nil {
				return err
			}
			return need(strings.Contains(text, "[[Category:Marsupials]]") && strings.Contains(text, "Rottnest"), "Quokka reads:\n%s", text)
		}},
	{app: "mediawiki", task: "create", what: "create a new page from the search's red link, with a summary",
		run: func(a *agent, x *app) error {
			return steps(func() error { return mwLogin(a, x) },
				func() error { return a.openApp(x, "index.php?title=Main_Page") },
				func() error { return e(a.typeInto("searchbox", "Search Team Wiki", "Meeting notes", true, true)) },
				func() error { return e(a.click("link", "Meeting notes", none)) },
				func() error {
					return e(a.typeInto("textbox", "Wikitext source editor", "Agreed: ship on Friday.\n", true, false))
				},
				func() error { return mwSave(a, "Save page", "first notes") })
		},
		score: func(t *testing.T, x *app) error {
			text, summary, err := mwPage(x, "Meeting notes")
			if err != nil {
				return err
			}
			return need(strings.Contains(text, "ship on Friday") && summary == "first notes", "Meeting notes: %q, summary %q", text, summary)
		}},
	{app: "mediawiki", task: "protect", what: "protect the main page so that only administrators edit it",
		run: func(a *agent, x *app) error {
			return steps(func() error { return mwLogin(a, x) },
				func() error { return a.openApp(x, "index.php?title=Main_Page") },
				func() error { return e(a.click("button", "More", none)) },
				func() error { return e(a.click("link", "Protect", none)) },
				func() error { return e(a.pick("combobox", "Allow all users", "Allow only administrators")) },
				func() error { return e(a.click("button", "Confirm", none)) })
		},
		score: func(t *testing.T, x *app) error {
			db := x.db(t, "wiki.sqlite")
			lvl := one(t, db, `SELECT pr_level FROM page_restrictions r JOIN page p ON p.page_id = r.pr_page WHERE p.page_title = 'Main_Page' AND r.pr_type = 'edit'`)
			return need(lvl == "sysop", "the main page's edit protection is %q", lvl)
		}},

	{app: "django", task: "add-user", what: "add a user with a password, then make her staff and put her in a group",
		run: func(a *agent, x *app) error {
			return steps(func() error { return djLogin(a, x) },
				func() error { return e(a.click("link", "Users", none)) },
				func() error { return e(a.click("link", "ADD USER", none)) },
				func() error { return e(a.typeInto("textbox", "Username:", "maria", true, false)) },
				func() error { return e(a.typeInto("textbox", "Password:", "Maria-pass-2026", true, false)) },
				func() error {
					return e(a.typeInto("textbox", "Password confirmation:", "Maria-pass-2026", true, false))
				},
				func() error { return e(a.click("button", "Save", none)) },
				func() error { return e(a.click("checkbox", "Staff status", none)) },
				func() error { return e(a.click("option", "Editors", none)) },
				func() error { return e(a.click("link", "Choose", none)) },
				func() error { return e(a.click("button", "Save", none)) })
		},
		score: func(t *testing.T, x *app) error {
			db := x.db(t, "db.sqlite3")
			staff := one(t, db, `SELECT is_staff FROM auth_user WHERE username = 'maria'`)
			group := one(t, db, `SELECT g.name FROM auth_user_groups ug JOIN auth_user u ON u.id = ug.user_id JOIN auth_group g ON g.id = ug.group_id WHERE u.username = 'maria'`)
			return need(staff == "1" && group == "Editors", "maria: staff %q, group %q", staff, group)
		}},
	{app: "django", task: "new-article", what: "write an article in a category, published today",
		run: func(a *agent, x *app) error {
			return steps(func() error { return djLogin(a, x) },
				func() error { return e(a.click("link", "Articles", none)) },
				func() error { return e(a.click("link", "ADD ARTICLE", none)) },
				func() error { return e(a.typeInto("textbox", "Title:", "Tram line opens", true, false)) },
				func() error {
					return e(a.typeInto("textbox", "Body:", "The new tram line opened on Monday.", true, false))
				},
				func() error { return e(a.pick("combobox", "Category:", "Sport")) },
				func() error { return e(a.click("checkbox", "Published", none)) },
				func() error { return e(a.click("link", "Today", none)) },
				func() error { return e(a.click("button", "Save", none)) })
		},
		score: func(t *testing.T, x *app) error {
			db := x.db(t, "db.sqlite3")
			row := one(t, db, `SELECT c.name || '|' || a.published || '|' || a.publish_date FROM articles_article a JOIN articles_category c ON c.id = a.category_id WHERE a.title = 'Tram line opens' AND a.body LIKE '%Monday%'`)
			today := time.Now().UTC().Format("2006-01-02")
			return need(row == "Sport|1|"+today, "the article: %q (want Sport, published, %s)", row, today)
		}},
	{app: "django", task: "search-delete", what: "find an article by a word and delete it",
		run: func(a *agent, x *app) error {
			return steps(func() error { return djLogin(a, x) },
				func() error { return e(a.click("link", "Articles", none)) },
				func() error { return e(a.typeInto("textbox", "Search", "budget", true, true)) },
				func() error { return e(a.click("link", "Draft: budget leaks", none)) },
				func() error {
					// The object's own Delete link, beside Save — not the
					// category widget's.
					ref, err := a.refAfterText(`button "Save"`, "link", "Delete")
					if err != nil {
						return err
					}
					return e(a.saw(a.tool.click(ref, none)))
				},
				func() error { return e(a.click("button", "Yes, I’m sure", none)) })
		},
		score: func(t *testing.T, x *app) error {
			db := x.db(t, "db.sqlite3")
			n := one(t, db, `SELECT count(*) FROM articles_article WHERE title LIKE '%budget%'`)
			all := one(t, db, `SELECT count(*) FROM articles_article`)
			return need(n == "0" && all == "5", "budget articles left: %s, articles: %s (want 0 and 5)", n, all)
		}},
	{app: "django", task: "bulk-delete", what: "select two rows of the list and delete them with the list's action",
		run: func(a *agent, x *app) error {
			return steps(func() error { return djLogin(a, x) },
				func() error { return e(a.click("link", "Articles", none)) },
				func() error { return a.clickInRow("Old announcement about parking", "checkbox") },
				func() error { return a.clickInRow("Another old announcement about parking", "checkbox") },
				func() error { return e(a.pick("combobox", "Action:", "Delete selected articles")) },
				func() error { return e(a.click("button", "Go", none)) },
				func() error { return e(a.click("button", "Yes, I’m sure", none)) })
		},
		score: func(t *testing.T, x *app) error {
			db := x.db(t, "db.sqlite3")
			n := one(t, db, `SELECT count(*) FROM articles_article WHERE title LIKE '%parking%'`)
			all := one(t, db, `SELECT count(*) FROM articles_article`)
			return need(n == "0" && all == "4", "parking articles left: %s, articles: %s (want 0 and 4)", n, all)
		}},
	{app: "django", task: "rename-category", what: "correct a category's misspelt name",
		run: func(a *agent, x *app) error {
			return steps(func() error { return djLogin(a, x) },
				func() error { return e(a.click("link", "Categories", none)) },
				func() error { return e(a.click("link", "Cultur", none)) },
				func() error { return e(a.typeInto("textbox", "Name:", "Culture", true, false)) },
				func() error { return e(a.click("button", "Save", none)) })
		},
		score: func(t *testing.T, x *app) error {
			db := x.db(t, "db.sqlite3")
			names := one(t, db, `SELECT group_concat(name, ',') FROM (SELECT name FROM articles_category ORDER BY name)`)
			return need(names == "Culture,News,Sport", "categories: %s", names)
		}},
	{app: "django", task: "deactivate-user", what: "deactivate a user's account",
		run: func(a *agent, x *app) error {
			return steps(func() error { return djLogin(a, x) },
				func() error { return e(a.click("link", "Users", none)) },
				func() error { return e(a.click("link", "sam", none)) },
				func() error { return e(a.click("checkbox", "Active", none)) },
				func() error { return e(a.click("button", "Save", none)) })
		},
		score: func(t *testing.T, x *app) error {
			db := x.db(t, "db.sqlite3")
			active := one(t, db, `SELECT is_active FROM auth_user WHERE username = 'sam'`)
			return need(active == "0", "sam is_active = %s", active)
		}},
	{app: "django", task: "filter-publish", what: "filter the list to unpublished articles and publish one",
		run: func(a *agent, x *app) error {
			return steps(func() error { return djLogin(a, x) },
				func() error { return e(a.click("link", "Articles", none)) },
				func() error {
					// "By published": All, Yes, No.
					ref, err := a.refAfterText("By published", "link", "No")
					if err != nil {
						return err
					}
					return e(a.saw(a.tool.click(ref, none)))
				},
				func() error { return e(a.click("link", "Harbour festival moves to June", none)) },
				func() error { return e(a.click("checkbox", "Published", none)) },
				func() error { return e(a.click("button", "Save", none)) })
		},
		score: func(t *testing.T, x *app) error {
			db := x.db(t, "db.sqlite3")
			pub := one(t, db, `SELECT group_concat(title || '=' || published, ',') FROM articles_article WHERE title IN ('Harbour festival moves to June', 'Draft: budget leaks')`)
			return need(pub == "Harbour festival moves to June=1,Draft: budget leaks=0" || pub == "Draft: budget leaks=0,Harbour festival moves to June=1", "published: %s", pub)
		}},
}

// djLogin logs in to the Django admin as its superuser.
func djLogin(a *agent, x *app) error {
	return steps(func() error { return a.openApp(x, "admin/") },
		func() error { return e(a.typeInto("textbox", "Username:", "admin", true, false)) },
		func() error { return e(a.typeInto("textbox", "Password:", appPassword, true, false)) },
		func() error { return e(a.click("button", "Log in", none)) })
}

// clickInRow clicks the control of role in the table row that shows text
// (a row's unnamed checkbox): on the row's line, or within the lines
// under it (Playwright MCP puts a row's cells on lines of their own).
func (a *agent) clickInRow(text, role string) error {
	for k := len(a.seen) - 1; k >= 0; k-- {
		ls := strings.Split(shownOnly(a.seen[k]), "\n")
		for i, l := range ls {
			if strings.HasPrefix(l, "- ") || !strings.Contains(l, `"`+text+`"`) && !strings.Contains(l, `"`+text+" ") {
				continue
			}
			for _, m := range ls[i:min(i+4, len(ls))] {
				if j := strings.Index(m, role+" [ref="); j >= 0 || strings.Contains(m, role+" \"") {
					if r := quotedRef.FindStringSubmatch(m[max(j, 0):]); r != nil {
						return e(a.saw(a.tool.click(r[1], none)))
					}
				}
			}
		}
	}
	return fmt.Errorf("no %s in the row of %q:\n%s", role, text, a.last)
}

// refAfterText is the ref of the first role "name" after the newest line
// showing text (the "No" link of the filter headed "By published").
func (a *agent) refAfterText(text, role, name string) (string, error) {
	ls := strings.Split(a.last, "\n")
	for i, l := range ls {
		if !strings.Contains(strings.ToLower(l), strings.ToLower(text)) {
			continue
		}
		for _, m := range ls[i+1:] {
			if r, ok := findInLine(m, role, name); ok {
				return r, nil
			}
		}
	}
	return "", fmt.Errorf("no %s %q after %q:\n%s", role, name, text, a.last)
}
