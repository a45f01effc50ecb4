//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
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
					// A text field that holds the old title, or the combobox
					// the page's script makes of it once it has loaded.
					if err := a.typeWhereValue("combobox", "Draft plan", "Project plan"); err == nil {
						return nil
					}
					return a.typeWhereValue("textbox", "Draft plan", "Project plan")
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
				func() error {
					// The first dropdown of the group "Edit".
					ref, err := a.refAfterRole(`group "Edit"`, "combobox")
					if err != nil {
						return err
					}
					return e(a.pickRef(ref, "Allow only administrators"))
				},
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
				func() error { return a.openApp(x, "admin/auth/user/") },
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
				func() error { return a.openApp(x, "admin/articles/article/") },
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
				func() error { return a.openApp(x, "admin/articles/article/") },
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
				func() error { return a.openApp(x, "admin/articles/article/") },
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
				func() error { return a.openApp(x, "admin/articles/category/") },
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
				func() error { return a.openApp(x, "admin/auth/user/") },
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
				func() error { return a.openApp(x, "admin/articles/article/") },
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
	{app: "adminer", task: "insert", what: "add a row to a table with the New item form",
		run: func(a *agent, x *app) error {
			return steps(func() error { return adLogin(a, x) },
				func() error { return e(a.click("link", "products", none)) },
				func() error { return e(a.click("link", "New item", none)) },
				func() error { return a.typeInRow("name", "textbox", "Hammer") },
				func() error { return a.typeInRow("price", "textbox", "15.5") },
				func() error { return a.typeInRow("category", "textbox", "tools") },
				func() error { return e(a.click("button", "Save", none)) })
		},
		score: func(t *testing.T, x *app) error {
			row := one(t, x.db(t, "shop.db"), `SELECT name || '|' || price || '|' || category FROM products WHERE name = 'Hammer'`)
			return need(row == "Hammer|15.5|tools", "the new row: %q", row)
		}},
	{app: "adminer", task: "edit", what: "change one value of a row from the table's data",
		run: func(a *agent, x *app) error {
			return steps(func() error { return adLogin(a, x) },
				func() error { return e(a.click("link", "products", none)) },
				func() error { return e(a.click("link", "Select data", none)) },
				func() error { return a.clickInRow("Gadget", "link") },
				func() error { return a.typeInRow("price", "textbox", "19.99") },
				func() error { return e(a.click("button", "Save", none)) })
		},
		score: func(t *testing.T, x *app) error {
			price := one(t, x.db(t, "shop.db"), `SELECT price FROM products WHERE name = 'Gadget'`)
			return need(price == "19.99", "Gadget's price: %q", price)
		}},
	{app: "adminer", task: "sql", what: "run an UPDATE in the SQL command page",
		run: func(a *agent, x *app) error {
			return steps(func() error { return adLogin(a, x) },
				func() error { return e(a.click("link", "SQL command", none)) },
				func() error {
					ref, err := a.refAfterRole("SQL command", "textbox")
					if err != nil {
						return err
					}
					return e(a.saw(a.tool.typeText(ref, "UPDATE orders SET status = 'shipped' WHERE quantity >= 10", true, false)))
				},
				func() error { return e(a.click("button", "Execute", none)) })
		},
		score: func(t *testing.T, x *app) error {
			st := one(t, x.db(t, "shop.db"), `SELECT group_concat(status, ',') FROM (SELECT status FROM orders ORDER BY id)`)
			return need(st == "new,shipped,shipped", "orders' statuses: %q", st)
		}},
	{app: "adminer", task: "delete-row", what: "select a row of the table's data and delete it",
		run: func(a *agent, x *app) error {
			return steps(func() error { return adLogin(a, x) },
				func() error { return e(a.click("link", "products", none)) },
				func() error { return e(a.click("link", "Select data", none)) },
				func() error { return a.clickInRow("Discontinued lamp", "checkbox") },
				func() error { return e(a.click("button", "Delete", none)) },
				func() error { return e(a.saw(a.tool.dialog(true))) }) // "Are you sure?"
		},
		score: func(t *testing.T, x *app) error {
			db := x.db(t, "shop.db")
			n, all := one(t, db, `SELECT count(*) FROM products WHERE name LIKE 'Discontinued%'`), one(t, db, `SELECT count(*) FROM products`)
			return need(n == "0" && all == "4", "lamps left %s, products %s (want 0 and 4)", n, all)
		}},
	{app: "adminer", task: "create-table", what: "create a table with a named text column",
		run: func(a *agent, x *app) error {
			return steps(func() error { return adLogin(a, x) },
				func() error { return e(a.click("link", "Create table", none)) },
				func() error {
					ref, err := a.refAfterRole("Table name", "textbox")
					if err != nil {
						return err
					}
					return e(a.saw(a.tool.typeText(ref, "suppliers", true, false)))
				},
				// The column's type, then its name: a name typed adds an
				// empty row below, with a Type of its own.
				func() error { return e(a.pick("combobox", "Type", "text")) },
				func() error { return e(a.typeInto("textbox", "Column name", "company", true, false)) },
				func() error { return e(a.click("button", "Save", none)) })
		},
		score: func(t *testing.T, x *app) error {
			sqlText := one(t, x.db(t, "shop.db"), `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'suppliers'`)
			return need(strings.Contains(sqlText, "company") && strings.Contains(strings.ToLower(sqlText), "text"), "the suppliers table: %q", sqlText)
		}},
	{app: "adminer", task: "add-column", what: "add a column to an existing table with Alter table",
		run: func(a *agent, x *app) error {
			return steps(func() error { return adLogin(a, x) },
				func() error { return e(a.click("link", "products", none)) },
				func() error { return e(a.click("link", "Alter table", none)) },
				func() error {
					// The last column's "+" adds an empty row after it.
					refs := a.candidates(a.seen, "button", "+")
					if len(refs) == 0 {
						return fmt.Errorf("no + button:\n%s", a.last)
					}
					return e(a.saw(a.tool.click(refs[len(refs)-1], none)))
				},
				func() error {
					for _, l := range strings.Split(a.last, "\n") {
						// (An empty field: no value= here, no ": value" after
						// Playwright MCP's line.)
						if i := strings.Index(l, `textbox "Column name" [`); i >= 0 && !strings.Contains(l[i:], "value=") && !strings.Contains(l[i:], "]: ") {
							return e(a.saw(a.tool.typeText(quotedRef.FindStringSubmatch(l[i:])[1], "stock", true, false)))
						}
					}
					return fmt.Errorf("no empty Column name field:\n%s", a.last)
				},
				func() error { return e(a.click("button", "Save", none)) })
		},
		score: func(t *testing.T, x *app) error {
			sqlText := one(t, x.db(t, "shop.db"), `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'products'`)
			return need(strings.Contains(sqlText, "stock"), "the products table: %q", sqlText)
		}},
	{app: "dokuwiki", task: "edit-section", what: "add a line to one section of a page with that section's Edit button",
		run: func(a *agent, x *app) error {
			return steps(func() error { return dwLogin(a, x, "team:onboarding") },
				func() error {
					click := func() error {
						ref, err := a.refAfterRole("First week", "button")
						if err != nil {
							return err
						}
						return e(a.saw(a.tool.click(ref, none)))
					}
					err := click()
					if err != nil && a.lenient() && strings.Contains(err.Error(), "Try capturing new snapshot") {
						// As Playwright MCP says: a new snapshot, then the
						// section's button in it.
						if _, serr := a.saw(a.tool.snapshot()); serr == nil {
							err = click()
						}
					}
					return err
				},
				func() error {
					return a.typeWhereValue("textbox", "===== First week =====", "===== First week =====\nMeet the team and set up your laptop.\nBook the welcome lunch.\n")
				},
				func() error { return e(a.click("button", "Save", none)) })
		},
		score: func(t *testing.T, x *app) error {
			text := dwPage(x, "team:onboarding")
			i, j := strings.Index(text, "Book the welcome lunch"), strings.Index(text, "===== Tools =====")
			return need(i > 0 && j > i && strings.Contains(text, "Welcome to the team.") && strings.Contains(text, "We use the wiki"),
				"onboarding reads:\n%s", text)
		}},
	{app: "dokuwiki", task: "create", what: "create a page that does not exist yet",
		run: func(a *agent, x *app) error {
			return steps(func() error { return dwLogin(a, x, "team:retro") },
				func() error { return e(a.click("link", "Create this page [e]", none)) },
				func() error {
					return a.typeWhereValue("textbox", "", "====== Retro ======\nWhat went well: the launch.\n")
				},
				func() error { return e(a.typeInto("textbox", "Edit summary", "first retro", true, false)) },
				func() error { return e(a.click("button", "Save", none)) })
		},
		score: func(t *testing.T, x *app) error {
			text := dwPage(x, "team:retro")
			return need(strings.Contains(text, "What went well: the launch."), "team:retro reads %q", text)
		}},
	{app: "dokuwiki", task: "restore", what: "bring back the previous revision of a page someone blanked",
		run: func(a *agent, x *app) error {
			return steps(func() error { return dwLogin(a, x, "team:holidays") },
				func() error { return e(a.click("link", "Old revisions [o]", none)) },
				func() error {
					// The list's second revision, the one before the blanking:
					// its link shows its date and the page's name.
					refs := a.candidates(a.seen, "link", "team:holidays")
					if len(refs) < 2 {
						return fmt.Errorf("no older revision to open:\n%s", a.last)
					}
					return e(a.saw(a.tool.click(refs[1], none)))
				},
				func() error { return e(a.click("link", "Restore", none)) },
				func() error { return e(a.saw(a.tool.dialog(true))) }) // "Really restore this version?"
		},
		score: func(t *testing.T, x *app) error {
			text := dwPage(x, "team:holidays")
			return need(strings.Contains(text, "closes from 24 December") && !strings.Contains(text, "Nobody"), "team:holidays reads %q", text)
		}},
	{app: "dokuwiki", task: "add-user", what: "add a user in the admin's User Manager",
		run: func(a *agent, x *app) error {
			return steps(func() error { return dwLogin(a, x, "start") },
				func() error { return e(a.click("link", "Admin", none)) },
				func() error { return e(a.click("link", "User Manager", none)) },
				func() error { return e(a.typeInto("textbox", "User:", "lena", true, false)) },
				func() error { return e(a.typeInto("textbox", "Password:", "Lena-pass-2026", true, false)) },
				func() error { return e(a.typeInto("textbox", "once again:", "Lena-pass-2026", true, false)) },
				func() error { return e(a.typeInto("textbox", "Real Name:", "Lena Berg", true, false)) },
				func() error { return e(a.typeInto("textbox", "Email:", "lena@example.org", true, false)) },
				func() error { return e(a.click("button", "Add", none)) })
		},
		score: func(t *testing.T, x *app) error {
			b, _ := os.ReadFile(filepath.Join(x.dir, "conf", "users.auth.php"))
			return need(strings.Contains(string(b), "\nlena:") && strings.Contains(string(b), ":Lena Berg:lena@example.org:"), "users.auth.php:\n%s", b)
		}},
	{app: "dokuwiki", task: "search-append", what: "find a page by a word it holds and add a line to it",
		run: func(a *agent, x *app) error {
			return steps(func() error { return dwLogin(a, x, "start") },
				func() error { return e(a.typeInto("textbox", "[F]", "descaled", true, true)) },
				func() error { return e(a.click("link", "kitchen", none)) },
				func() error { return e(a.click("link", "Edit this page [e]", none)) },
				func() error {
					return a.typeWhereValue("textbox", "====== Kitchen ======", "====== Kitchen ======\nThe coffee machine is descaled on Fridays.\nThe fridge is emptied on Mondays.\n")
				},
				func() error { return e(a.click("button", "Save", none)) })
		},
		score: func(t *testing.T, x *app) error {
			text := dwPage(x, "team:kitchen")
			return need(strings.Contains(text, "emptied on Mondays") && strings.Contains(text, "descaled"), "team:kitchen reads %q", text)
		}},
	{app: "dokuwiki", task: "upload", what: "upload a file to a namespace with the Media Manager",
		run: func(a *agent, x *app) error {
			if err := os.MkdirAll(a.tool.uploadDir(), 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(a.tool.uploadDir(), "floorplan.pdf"), []byte(floorplanPDF), 0o600); err != nil {
				return err
			}
			return steps(func() error { return dwLogin(a, x, "team:onboarding") },
				func() error { return e(a.click("link", "Media Manager", none)) },
				func() error { return e(a.click("link", "Upload", none)) },
				func() error {
					ref, err := a.refAfterRole("Select files…", "button")
					if err != nil {
						return err
					}
					_, err = a.saw(a.tool.upload(ref, []string{"floorplan.pdf"}))
					if err != nil && a.lenient() {
						// The file input is under the page's own button: a
						// person clicks the button.
						if ref, perr := a.refAround("Select files…"); perr == nil {
							_, err = a.saw(a.tool.upload(ref, []string{"floorplan.pdf"}))
						}
					}
					return err
				},
				func() error { return e(a.click("button", "Upload", none)) })
		},
		score: func(t *testing.T, x *app) error {
			b, err := os.ReadFile(filepath.Join(x.dir, "data", "media", "team", "floorplan.pdf"))
			return need(err == nil && string(b) == floorplanPDF, "team:floorplan.pdf: %v %.40q", err, b)
		}},
}

// typeWhereValue replaces the text of the field of role whose line shows
// value (an editor named by nothing but its text; with value "", the
// first empty one named by nothing).
func (a *agent) typeWhereValue(role, value, text string) error {
	for k := len(a.seen) - 1; k >= 0; k-- {
		for _, l := range strings.Split(shownOnly(a.seen[k]), "\n") {
			i := strings.Index(l, role+" [ref=")
			if i < 0 {
				i = strings.Index(l, role+" [active] [ref=") // Playwright MCP's focused field
			}
			if i < 0 && value != "" {
				i = strings.Index(l, role+` "`)
			}
			if i < 0 || strings.HasPrefix(l, "- ") || value != "" && !strings.Contains(l, value) ||
				value == "" && (strings.Contains(l, "value=") || strings.Contains(l, "]: ")) {
				continue
			}
			if r := quotedRef.FindStringSubmatch(l[i:]); r != nil {
				return e(a.saw(a.tool.typeText(r[1], text, true, false)))
			}
		}
	}
	return fmt.Errorf("no %s showing %q:\n%s", role, value, a.last)
}

// floorplanPDF is the file the upload task sends (DokuWiki refuses .txt).
const floorplanPDF = "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"

// refAround is the ref of the element around the newest line showing text
// (Playwright MCP's `- generic [ref=…]:` over `- text: Select files…`).
func (a *agent) refAround(text string) (string, error) {
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	ls := strings.Split(a.last, "\n")
	for i := len(ls) - 1; i >= 0; i-- {
		if !strings.Contains(ls[i], text) {
			continue
		}
		for p := i - 1; p >= 0; p-- {
			if indent(ls[p]) < indent(ls[i]) {
				if r := quotedRef.FindStringSubmatch(ls[p]); r != nil {
					return r[1], nil
				}
				break
			}
		}
	}
	return "", fmt.Errorf("nothing around %q has a ref:\n%s", text, a.last)
}

// dwLogin logs in to DokuWiki as its administrator from the page id.
func dwLogin(a *agent, x *app, id string) error {
	return steps(func() error { return a.openApp(x, "doku.php?id="+id) },
		func() error { return e(a.click("link", "Log In", none)) },
		func() error { return e(a.typeInto("textbox", "Username", "admin", true, false)) },
		func() error { return e(a.typeInto("textbox", "Password", appPassword, true, false)) },
		func() error { return e(a.click("button", "Log In", none)) })
}

// djLogin logs in to the Django admin as its superuser.
func djLogin(a *agent, x *app) error {
	return steps(func() error { return a.openApp(x, "admin/") },
		func() error { return e(a.typeInto("textbox", "Username:", "admin", true, false)) },
		func() error { return e(a.typeInto("textbox", "Password:", appPassword, true, false)) },
		func() error { return e(a.click("button", "Log in", none)) })
}

// refInRow is the ref of the control of role in the table row that shows
// text (a row's unnamed checkbox, a form's field beside its label cell):
// on the row's line, or within the lines under it (Playwright MCP puts a
// row's cells on lines of their own).
func (a *agent) refInRow(text, role string) (string, error) {
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " +~-")) }
	isRow := func(l string) bool {
		t := strings.TrimLeft(l, " ")
		return strings.Contains(l, `"`+text+`"`) || strings.Contains(l, `"`+text+" ") ||
			strings.HasPrefix(t, text+" |") || strings.HasPrefix(t, "row: "+text) || strings.Contains(l, "| "+text+" |") ||
			strings.HasPrefix(t, "- row \"") && strings.Contains(l, " "+text+" ")
	}
	for k := len(a.seen) - 1; k >= 0; k-- {
		ls := strings.Split(shownOnly(a.seen[k]), "\n")
		for i, l := range ls {
			if strings.HasPrefix(l, "- ") || !isRow(l) {
				continue
			}
			if strings.HasPrefix(strings.TrimLeft(l, " "), "- ") {
				// Playwright MCP's cell, or a link in one: the row is an
				// ancestor line.
				for cur, up := i, 0; up < 4 && cur > 0; up++ {
					p := cur - 1
					for p > 0 && indent(ls[p]) >= indent(ls[cur]) {
						p--
					}
					if t := strings.TrimLeft(ls[p], " "); strings.HasPrefix(t, "- row ") || strings.HasPrefix(t, "- row:") {
						i, l = p, ls[p]
						break
					}
					cur = p
				}
			}
			for n, m := range ls[i:] {
				if n > 0 && indent(m) <= indent(l) {
					break // past the row's own lines
				}
				j := strings.Index(m, role+" [") // [ref=…], or Playwright MCP's [active]
				if j < 0 {
					j = strings.Index(m, role+` "`)
				}
				if j >= 0 {
					if r := quotedRef.FindStringSubmatch(m[j:]); r != nil {
						return r[1], nil
					}
				}
			}
		}
	}
	return "", fmt.Errorf("no %s in the row of %q:\n%s", role, text, a.last)
}

// clickInRow clicks the control of role in the row that shows text.
func (a *agent) clickInRow(text, role string) error {
	ref, err := a.refInRow(text, role)
	if err != nil {
		return err
	}
	return e(a.saw(a.tool.click(ref, none)))
}

// typeInRow types into the field of role in the row that shows text.
func (a *agent) typeInRow(text, role, typed string) error {
	ref, err := a.refInRow(text, role)
	if err != nil {
		return err
	}
	return e(a.saw(a.tool.typeText(ref, typed, true, false)))
}

// adLogin logs in to Adminer's SQLite database of the shop.
func adLogin(a *agent, x *app) error {
	return steps(func() error { return a.openApp(x, "") },
		func() error {
			ref, err := a.refInRow("System", "combobox")
			if err != nil {
				return err
			}
			return e(a.pickRef(ref, "SQLite 3"))
		},
		func() error { return a.typeInRow("Username", "textbox", "admin") },
		func() error { return a.typeInRow("Password", "textbox", appPassword) },
		func() error { return a.typeInRow("Database", "textbox", filepath.Join(x.dir, "shop.db")) },
		func() error { return e(a.click("button", "Login", none)) })
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
