//go:build linux

package e2e

import (
	"fmt"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/testsite"
)

// The third-party corpus (internal/testsite/thirdparty, served at /tp/)
// holds pages built on widget libraries real sites use, installed from npm
// at pinned versions and bundled at test time: code none of us wrote. The
// same scripted agent drives each task on refs only, and the page's own
// state scores it. Every patched answer is checked against a whole read
// (BROWSERD_VERIFY_PATCH, set by TestMain), so a stale answer fails the
// step that got it.

// tpTask is one task on a third-party page.
type tpTask struct {
	lib, page, task string
	what            string               // the class of difficulty it covers
	run             func(a *agent) error // the agent's way through
	check           string               // JavaScript that yields true when done
}

func (c tpTask) key() string { return c.page + ":" + c.task }

// openTP opens a page of the third-party corpus.
func (a *agent) openTP(page string) error {
	_, err := a.saw(a.tool.navigate(site.URL("/tp/" + page)))
	return err
}

// refInGroup is the ref of the control named name in the smallest group
// that shows text: the lines under the nearest line above text's that is
// indented less — a card, a row, a list item — as a model reads which
// "Add to cart" goes with which product.
func (a *agent) refInGroup(text, role, name string) (string, error) {
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " +~-")) }
	for k := len(a.seen) - 1; k >= 0; k-- {
		ls := strings.Split(a.seen[k], "\n")
		for i, l := range ls {
			if !strings.Contains(l, text) || strings.HasPrefix(l, "- ") {
				continue
			}
			start := i
			for start > 0 && indent(ls[start]) >= indent(l) {
				start--
			}
			for climbed := false; ; climbed = true {
				var refs []string
				for j := start + 1; j < len(ls) && (j <= i || indent(ls[j]) > indent(ls[start])); j++ {
					if ref, ok := findIn(ls[j], role, name); ok {
						refs = append(refs, ref)
					}
				}
				if len(refs) > 0 && (!climbed || len(refs) == 1) {
					return refs[0], nil
				}
				// A lenient agent reads the nesting: when the smallest group
				// holds no such control it looks one group up (Playwright
				// MCP shows a Swag Labs card's name and its button in sibling
				// blocks), as long as that group holds exactly one.
				up := start
				for up > 0 && indent(ls[up]) >= indent(ls[start]) {
					up--
				}
				if !a.lenient() || len(refs) > 1 || up == start || start == 0 {
					break
				}
				start = up
			}
			return "", fmt.Errorf("no %s %q in the group of %q:\n%s", role, name, text, a.seen[k])
		}
	}
	return "", fmt.Errorf("no %q in the answers:\n%s", text, a.last)
}

// clickAfter clicks the first control after the newest line showing text
// (a field or a box named by its value, after the label that says what it
// is for).
func (a *agent) clickAfter(text string) (string, error) {
	ref, err := a.refAfter(text)
	if err != nil {
		return "", err
	}
	return a.saw(a.tool.click(ref, none))
}

// inEditor clicks into the editor after the line showing text, presses
// key there, then types.
func (a *agent) inEditor(text, key, typed string) (string, error) {
	// The editor's textbox, where the snapshot shows one (Playwright MCP
	// shows CodeMirror's content as a textbox inside a wrapper generic).
	ref, err := a.refAfterRole(text, "textbox")
	if err != nil {
		ref, err = a.refAfter(text)
	}
	if err != nil {
		return "", err
	}
	if _, err := a.saw(a.tool.click(ref, none)); err != nil {
		return "", err
	}
	if _, err := a.saw(a.tool.press(ref, key)); err != nil {
		return "", err
	}
	return a.saw(a.tool.typeKeys(ref, typed))
}

var tpTasks = []tpTask{
	{"jQuery UI", "jqueryui-autocomplete", "pick", "suggestions shown 300 ms after the last key, plain <li>s whose click listener is on their list", func(a *agent) error {
		return steps(func() error { return a.openTP("jqueryui-autocomplete") },
			func() error {
				txt, err := a.typeInto("textbox", "Country:", "Gu", false, false)
				return a.want(txt, err, "Guinea")
			},
			func() error { return e(a.click("", "Guinea", none)) })
	}, `document.getElementById('out').textContent === 'country: Guinea' && document.getElementById('country').value === 'Guinea'`},
	{"jQuery UI", "jqueryui-menu", "item", "a menu of plain list items", func(a *agent) error {
		return steps(func() error { return a.openTP("jqueryui-menu") },
			func() error { return e(a.click("menuitem", "Books", none)) })
	}, `document.getElementById('out').textContent === 'chose Books'`},
	{"jQuery UI", "jqueryui-menu", "submenu", "submenus that open after a delay, two levels deep", func(a *agent) error {
		return steps(func() error { return a.openTP("jqueryui-menu") },
			func() error { txt, err := a.click("menuitem", "Music", none); return a.want(txt, err, "Rock") },
			func() error { txt, err := a.click("menuitem", "Rock", none); return a.want(txt, err, "Classic") },
			func() error { return e(a.click("menuitem", "Classic", none)) })
	}, `document.getElementById('out').textContent === 'chose Classic'`},
	{"jQuery UI", "jqueryui-spinner", "arrows", "a spinner's up arrow, hidden from assistive technology, told from its down arrow", func(a *agent) error {
		if err := a.openTP("jqueryui-spinner"); err != nil {
			return err
		}
		up, err := a.refNear("Select a value", "up", 6)
		if err != nil {
			return err
		}
		for range 2 {
			if _, err := a.saw(a.tool.click(up, none)); err != nil {
				return err
			}
		}
		return nil
	}, `document.getElementById('spinner').value === '7'`},
	{"jQuery UI", "jqueryui-spinner", "type", "typing over a spinner's value", func(a *agent) error {
		return steps(func() error { return a.openTP("jqueryui-spinner") },
			func() error { return e(a.typeInto("spinbutton", "Select a value:", "3", true, false)) })
	}, `document.getElementById('spinner').value === '3'`},
	{"jQuery UI", "jqueryui-datepicker", "pick", "a calendar that opens on focus; next month; a day", func(a *agent) error {
		return steps(func() error { return a.openTP("jqueryui-datepicker") },
			func() error {
				// "Date: <input>": the field has no name; it follows its text.
				txt, err := a.clickAfter("Date:")
				return a.want(txt, err, "March")
			},
			func() error { txt, err := a.click("", "Next", none); return a.want(txt, err, "April") },
			func() error { return e(a.click("link", "14", none)) })
	}, `document.getElementById('datepicker').value === '04/14/2025'`},
	{"jQuery UI", "jqueryui-slider", "keys", "a slider handle without a role, moved by keys", func(a *agent) error {
		if err := a.openTP("jqueryui-slider"); err != nil {
			return err
		}
		ref, err := a.refNear("Volume", "slider", 6)
		if err != nil {
			return err
		}
		return e(a.saw(a.tool.press(ref, "End")))
	}, `document.getElementById('amount').value === '100'`},
	{"jQuery UI", "jqueryui-dialog", "confirm", "a modal dialog's buttons", func(a *agent) error {
		return steps(func() error { return a.openTP("jqueryui-dialog") },
			func() error {
				txt, err := a.click("button", "Delete account", none)
				return a.want(txt, err, "permanently deleted")
			},
			func() error { return e(a.click("button", "Delete all items", none)) })
	}, `document.getElementById('out').textContent === 'deleted' && !$('#dialog-confirm').dialog('isOpen')`},
	{"jQuery UI", "jqueryui-dialog", "close", "a dialog's close button (an icon with hidden text)", func(a *agent) error {
		return steps(func() error { return a.openTP("jqueryui-dialog") },
			func() error { return e(a.click("button", "Delete account", none)) },
			func() error { return e(a.click("button", "Close", none)) })
	}, `document.body.dataset.dialogOpened === '1' && !$('#dialog-confirm').dialog('isOpen') && document.getElementById('out').textContent === ''`},
	{"jQuery UI", "jqueryui-sortable", "drag", "a sortable list of plain items dragged by the pointer", func(a *agent) error {
		return steps(func() error { return a.openTP("jqueryui-sortable") },
			func() error { return e(a.drag("", "Item 1", "text", "Item 3")) })
	}, `$('#sortable li').first().text() === 'Item 2'`},
	{"jQuery UI", "jqueryui-accordion-tabs", "accordion", "an accordion's headers", func(a *agent) error {
		return steps(func() error { return a.openTP("jqueryui-accordion-tabs") },
			func() error { txt, err := a.click("tab", "Section 2", none); return a.want(txt, err, "Sed non urna") })
	}, `$('#accordion').accordion('option', 'active') === 1`},
	{"jQuery UI", "jqueryui-accordion-tabs", "tabs", "tabs", func(a *agent) error {
		return steps(func() error { return a.openTP("jqueryui-accordion-tabs") },
			func() error {
				txt, err := a.click("tab", "Proin dolor", none)
				return a.want(txt, err, "Morbi tincidunt")
			})
	}, `$('#tabs').tabs('option', 'active') === 1`},
	{"jQuery UI", "jqueryui-selectmenu", "select", "a select replaced by a button and a list", func(a *agent) error {
		return steps(func() error { return a.openTP("jqueryui-selectmenu") },
			func() error {
				// The button jQuery UI draws is named by its value; it
				// follows its label.
				ref, err := a.refAfter("Select a speed")
				if err != nil {
					return err
				}
				return e(a.pickRef(ref, "Fast"))
			})
	}, `$('#speed').val() === 'Fast'`},
	{"jQuery UI", "jqueryui-selectmenu", "checkboxradio", "radios and checkboxes drawn by their labels", func(a *agent) error {
		return steps(func() error { return a.openTP("jqueryui-selectmenu") },
			func() error { return e(a.click("radio", "3 Star", none)) },
			func() error { return e(a.click("checkbox", "1 Queen", none)) })
	}, `document.getElementById('radio-2').checked && document.getElementById('checkbox-2').checked`},
	{"Lit", "lit-todo", "hover-delete", "a Delete button shown by :hover inside a shadow root", func(a *agent) error {
		return steps(func() error { return a.openTP("lit-todo") },
			func() error { txt, err := a.hover("", "Call Bob"); return a.want(txt, err, "Delete") },
			func() error {
				ref, err := a.refInGroup("Call Bob", "button", "Delete")
				if err != nil {
					return err
				}
				return e(a.saw(a.tool.click(ref, none)))
			})
	}, `document.getElementById('out').textContent === 'deleted Call Bob'`},
	{"React", "react-shop", "add-to-cart", "product cards keep their grouping; prices read as the page shows them", func(a *agent) error {
		return steps(func() error { return a.openTP("react-shop") },
			func() error {
				if !strings.Contains(a.last, "$29.99") {
					return fmt.Errorf("the price does not read as the page shows it ($29.99):\n%s", a.last)
				}
				ref, err := a.refInGroup("Fleece Jacket", "button", "Add to cart")
				if err != nil {
					return err
				}
				txt, err := a.saw(a.tool.click(ref, none))
				return a.want(txt, err, "Total: $29.99")
			})
	}, `document.getElementById('cart').textContent === 'Fleece Jacket'`},
	{"React", "react-shop", "two-items", "a second card's button after the first answer changed the page", func(a *agent) error {
		return steps(func() error { return a.openTP("react-shop") },
			func() error {
				ref, err := a.refInGroup("Onesie", "button", "Add to cart")
				if err != nil {
					return err
				}
				return e(a.saw(a.tool.click(ref, none)))
			},
			func() error {
				ref, err := a.refInGroup("Bike Light", "button", "Add to cart")
				if err != nil {
					return err
				}
				txt, err := a.saw(a.tool.click(ref, none))
				return a.want(txt, err, "Total: $17.98")
			})
	}, `document.getElementById('cart').textContent === 'OnesieBike Light'`},
	{"React", "swag-shop", "add-to-cart", "a card whose name and button sit in sibling blocks (Swag Labs) is kept whole", func(a *agent) error {
		return steps(func() error { return a.openTP("swag-shop") },
			func() error {
				ref, err := a.refInGroup("Sauce Labs Fleece Jacket", "button", "Add to cart")
				if err != nil {
					return err
				}
				txt, err := a.saw(a.tool.click(ref, none))
				return a.want(txt, err, "Remove")
			})
	}, `document.getElementById('cart').textContent === 'Sauce Labs Fleece Jacket'`},
	{"React", "swag-shop", "two-items", "a second card's button, after the first one's answer", func(a *agent) error {
		return steps(func() error { return a.openTP("swag-shop") },
			func() error {
				ref, err := a.refInGroup("Sauce Labs Onesie", "button", "Add to cart")
				if err != nil {
					return err
				}
				return e(a.saw(a.tool.click(ref, none)))
			},
			func() error {
				ref, err := a.refInGroup("Sauce Labs Bolt T-Shirt", "button", "Add to cart")
				if err != nil {
					return err
				}
				txt, err := a.saw(a.tool.click(ref, none))
				return a.want(txt, err, "Remove")
			})
	}, `document.getElementById('cart').textContent === 'Sauce Labs Bolt T-ShirtSauce Labs Onesie' || document.getElementById('cart').textContent === 'Sauce Labs OnesieSauce Labs Bolt T-Shirt'`},
	{"Lit", "lit-todo", "count", "a count rendered by a web component updates in the answer", func(a *agent) error {
		return steps(func() error { return a.openTP("lit-todo") },
			func() error { return e(a.hover("", "Write report")) },
			func() error {
				ref, err := a.refInGroup("Write report", "button", "Delete")
				if err != nil {
					return err
				}
				txt, err := a.saw(a.tool.click(ref, none))
				return a.want(txt, err, "2 left")
			})
	}, `document.getElementById('out').textContent === 'deleted Write report'`},

	// Bootstrap 5.
	{"Bootstrap", "bootstrap-components", "dropdown", "a dropdown menu of links", func(a *agent) error {
		return steps(func() error { return a.openTP("bootstrap-components") },
			func() error { txt, err := a.click("button", "Actions", none); return a.want(txt, err, "Duplicate") },
			func() error { return e(a.click("link", "Duplicate", none)) })
	}, `document.getElementById('out').textContent === 'action: duplicate'`},
	{"Bootstrap", "bootstrap-components", "collapse", "a collapse that animates open", func(a *agent) error {
		return steps(func() error { return a.openTP("bootstrap-components") },
			func() error {
				txt, err := a.click("button", "Show details", none)
				return a.want(txt, err, "Shipping takes 3 to 5 business days.")
			})
	}, `document.getElementById('details').classList.contains('show')`},
	{"Bootstrap", "bootstrap-components", "accordion", "an accordion: opening one closes the other", func(a *agent) error {
		return steps(func() error { return a.openTP("bootstrap-components") },
			func() error {
				txt, err := a.click("button", "Do you ship abroad?", none)
				return a.want(txt, err, "We ship to 40 countries.")
			})
	}, `document.getElementById('q2').classList.contains('show') && !document.getElementById('q1').classList.contains('show')`},
	{"Bootstrap", "bootstrap-components", "tabs", "nav tabs", func(a *agent) error {
		return steps(func() error { return a.openTP("bootstrap-components") },
			func() error {
				txt, err := a.click("tab", "Profile", none)
				return a.want(txt, err, "Your profile: Ada.")
			})
	}, `document.getElementById('profile').classList.contains('active')`},
	{"Bootstrap", "bootstrap-overlays", "modal", "a modal that fades in; its buttons", func(a *agent) error {
		return steps(func() error { return a.openTP("bootstrap-overlays") },
			func() error {
				txt, err := a.click("button", "Remove project", none)
				return a.want(txt, err, "All its files will be deleted.")
			},
			func() error { return e(a.click("button", "Remove", none)) })
	}, `document.getElementById('out').textContent === 'removed'`},
	{"Bootstrap", "bootstrap-overlays", "modal-close", "a modal's close button, named by aria-label", func(a *agent) error {
		return steps(func() error { return a.openTP("bootstrap-overlays") },
			func() error { return e(a.click("button", "Remove project", none)) },
			func() error { txt, err := a.click("button", "Close", none); return a.want(txt, err, "Remove project") })
	}, `bootstrap.Modal.getInstance(document.getElementById('confirm')) !== null && !document.getElementById('confirm').classList.contains('show') && document.getElementById('out').textContent === ''`},
	{"Bootstrap", "bootstrap-overlays", "offcanvas", "an off-canvas panel that slides in, a checkbox and a switch in it", func(a *agent) error {
		return steps(func() error { return a.openTP("bootstrap-overlays") },
			func() error { txt, err := a.click("button", "Filters", none); return a.want(txt, err, "In stock only") },
			func() error { return e(a.click("checkbox", "In stock only", none)) },
			func() error { return e(a.click("switch", "On sale", none)) },
			func() error { return e(a.click("button", "Apply", none)) })
	}, `document.getElementById('out').textContent === 'filters: in stock sale'`},
	{"Bootstrap", "bootstrap-overlays", "tooltip", "a tooltip shown on hover", func(a *agent) error {
		return steps(func() error { return a.openTP("bootstrap-overlays") },
			func() error {
				txt, err := a.hover("button", "Share")
				return a.want(txt, err, "Copies the link to your clipboard")
			})
	}, `!!document.querySelector('.tooltip.show')`},
	{"Bootstrap", "bootstrap-overlays", "carousel", "a carousel's next control (text only for screen readers)", func(a *agent) error {
		return steps(func() error { return a.openTP("bootstrap-overlays") },
			func() error {
				txt, err := a.click("button", "Next", none)
				return a.want(txt, err, "Slide two: free shipping")
			},
			// The slide moves for 600 ms: a lenient agent waits until it left.
			func() error { return a.waitGone("Slide one: spring sale") })
	}, `document.querySelector('.carousel-item.active').textContent.includes('Slide two')`},

	// Tom Select.
	{"Tom Select", "tomselect", "single", "a searchable single select", func(a *agent) error {
		return steps(func() error { return a.openTP("tomselect") },
			func() error { return e(a.pick("combobox", "Favourite fruit", "Mango")) })
	}, `document.getElementById('fruit').value === 'mango'`},
	{"Tom Select", "tomselect", "type-filter", "typing filters the options, then one is clicked", func(a *agent) error {
		return steps(func() error { return a.openTP("tomselect") },
			func() error {
				txt, err := a.typeInto("combobox", "Favourite fruit", "che", false, false)
				return a.want(txt, err, "Cherry")
			},
			func() error { return e(a.click("option", "Cherry", none)) })
	}, `document.getElementById('fruit').value === 'cherry'`},
	{"Tom Select", "tomselect", "multi", "a tag input: two tags chosen", func(a *agent) error {
		return steps(func() error { return a.openTP("tomselect") },
			func() error { txt, err := a.click("combobox", "Tags", none); return a.want(txt, err, "Green") },
			func() error { return e(a.click("option", "Green", none)) },
			func() error { return e(a.click("option", "Blue", none)) })
	}, `[...document.getElementById('tags').selectedOptions].map(o => o.value).join() === 'green,blue'`},

	// SortableJS.
	{"SortableJS", "sortablejs", "move", "a card dragged to another column", func(a *agent) error {
		return steps(func() error { return a.openTP("sortablejs") },
			func() error { return e(a.drag("", "Fix login bug", "", "Set up CI")) })
	}, `document.getElementById('done').textContent.includes('Fix login bug')`},
	{"SortableJS", "sortablejs", "reorder", "a card dragged within its column", func(a *agent) error {
		return steps(func() error { return a.openTP("sortablejs") },
			func() error { return e(a.drag("", "Update docs", "", "Write tests")) })
	}, `document.querySelector('#todo .item').textContent === 'Update docs'`},

	// Quill.
	{"Quill", "quill", "type", "typing into a contenteditable editor", func(a *agent) error {
		return steps(func() error { return a.openTP("quill") },
			func() error {
				if !a.lenient() {
					return nil
				}
				// Keys go where the caret is: an agent clicks into the editor first.
				return e(a.click("textbox", "Meeting notes", none))
			},
			func() error {
				txt, err := a.typeInto("textbox", "Meeting notes", " with Bob", false, false)
				return a.want(txt, err, "with Bob")
			})
	}, `quill.getText().includes('with Bob')`},
	{"Quill", "quill", "bold", "a toolbar button applies to what is typed next", func(a *agent) error {
		return steps(func() error { return a.openTP("quill") },
			func() error { return e(a.click("textbox", "Meeting notes", none)) },
			func() error { return e(a.press("textbox", "Meeting notes", "End")) },
			func() error { return e(a.click("button", "bold", none)) },
			func() error { return e(a.typeInto("textbox", "Meeting notes", " URGENT", false, false)) })
	}, `quill.root.querySelector('strong') !== null && quill.root.querySelector('strong').textContent.includes('URGENT')`},
	{"Quill", "quill", "list", "a bulleted list from the toolbar", func(a *agent) error {
		return steps(func() error { return a.openTP("quill") },
			func() error { return e(a.click("textbox", "Meeting notes", none)) },
			func() error { return e(a.click("button", "list: bullet", none)) })
	}, `quill.root.querySelector('li') !== null`},

	// flatpickr.
	{"flatpickr", "flatpickr", "pick", "a read-only field whose calendar opens on click: next month, a day", func(a *agent) error {
		return steps(func() error { return a.openTP("flatpickr") },
			func() error { txt, err := a.click("textbox", "Check-in date", none); return a.want(txt, err, "March") },
			func() error {
				// The arrows have no name; their class says which is which.
				ref, err := a.refNear(`combobox "Month"`, "next-month", 20)
				if err != nil {
					return err
				}
				txt, err := a.saw(a.tool.click(ref, none))
				return a.want(txt, err, "April 14, 2025")
			},
			func() error { return e(a.click("", "April 14, 2025", none)) })
	}, `document.getElementById('checkin').value === '2025-04-14'`},
	{"flatpickr", "flatpickr", "read-only", "typing into a picker's read-only field says to use the picker; the agent does", func(a *agent) error {
		return steps(func() error { return a.openTP("flatpickr") },
			func() error {
				txt, err := a.typeInto("textbox", "Check-in date", "2025-03-02", false, false)
				if a.lenient() {
					return nil // browserd's claim (it says to use the picker); the agent goes on to the picker
				}
				if err == nil || !strings.Contains(err.Error(), "read-only") {
					return fmt.Errorf("typing into a read-only field did not say so: %v\n%s", err, txt)
				}
				return nil
			},
			func() error { return e(a.click("textbox", "Check-in date", none)) },
			func() error { return e(a.click("", "March 2, 2025", none)) })
	}, `document.getElementById('checkin').value === '2025-03-02'`},

	// Choices.js.
	{"Choices.js", "choices", "pick", "a searchable select drawn by the page", func(a *agent) error {
		return steps(func() error { return a.openTP("choices") },
			func() error { return e(a.pick("combobox", "City", "Rome")) })
	}, `document.getElementById('city').value === 'rome'`},

	// noUiSlider.
	{"noUiSlider", "nouislider", "keys", "a range slider's two handles moved by keys", func(a *agent) error {
		return steps(func() error { return a.openTP("nouislider") },
			func() error { return e(a.press("slider", "Lowest price", "ArrowRight")) },
			func() error { return e(a.press("slider", "Highest price", "ArrowLeft")) })
	}, `document.getElementById('lo').textContent === '21' && document.getElementById('hi').textContent === '79'`},
	{"noUiSlider", "nouislider", "drag", "a handle dragged by an offset", func(a *agent) error {
		if err := a.openTP("nouislider"); err != nil {
			return err
		}
		ref, err := a.find("slider", "Highest price")
		if err != nil {
			return err
		}
		txt, err := a.saw(a.tool.drag(ref, "+40,0"))
		return a.want(txt, err, "90")
	}, `document.getElementById('hi').textContent === '90'`},
	{"noUiSlider", "nouislider", "read", "text of spans in a paragraph reads as one line", func(a *agent) error {
		if err := a.openTP("nouislider"); err != nil {
			return err
		}
		if !strings.Contains(a.last, "Price: 20 to 80") {
			return fmt.Errorf("the price range does not read as one line:\n%s", a.last)
		}
		return nil
	}, `document.querySelector('p').textContent.replace(/\s+/g, ' ').includes('Price: 20 to 80')`}, // read-only: tpReadOnly

	// Headless UI.
	{"Headless UI", "headlessui", "menu", "a menu button and its items", func(a *agent) error {
		return steps(func() error { return a.openTP("headlessui") },
			func() error { txt, err := a.click("button", "Options", none); return a.want(txt, err, "Duplicate") },
			func() error { return e(a.click("menuitem", "Duplicate", none)) })
	}, `document.getElementById('out').textContent === 'duplicate'`},
	{"Headless UI", "headlessui", "listbox", "a listbox button", func(a *agent) error {
		return steps(func() error { return a.openTP("headlessui") },
			func() error {
				txt, err := a.click("button", "Assigned to Wade Cooper", none)
				return a.want(txt, err, "Tom Cook")
			},
			func() error { return e(a.click("option", "Tom Cook", none)) })
	}, `document.getElementById('state').textContent.startsWith('Tom Cook|')`},
	{"Headless UI", "headlessui", "switch", "a switch", func(a *agent) error {
		return steps(func() error { return a.openTP("headlessui") },
			func() error { return e(a.click("switch", "Enable notifications", none)) })
	}, `document.getElementById('state').textContent.includes('|true|')`},
	{"Headless UI", "headlessui", "combobox", "a combobox filtered by typing", func(a *agent) error {
		return steps(func() error { return a.openTP("headlessui") },
			func() error {
				txt, err := a.typeInto("combobox", "Reviewer", "dev", false, false)
				return a.want(txt, err, "Devon Webb")
			},
			func() error { return e(a.click("option", "Devon Webb", none)) })
	}, `document.getElementById('state').textContent.endsWith('|Devon Webb')`},
	{"Headless UI", "headlessui", "combobox-select", "select on a combobox", func(a *agent) error {
		return steps(func() error { return a.openTP("headlessui") },
			func() error { return e(a.pick("combobox", "Reviewer", "Tanya Fox")) })
	}, `document.getElementById('state').textContent.endsWith('|Tanya Fox')`},

	// Radix UI.
	{"Radix UI", "radix", "menu", "a dropdown menu in a portal", func(a *agent) error {
		return steps(func() error { return a.openTP("radix") },
			func() error { txt, err := a.click("button", "Customise", none); return a.want(txt, err, "New Tab") },
			func() error { return e(a.click("menuitem", "New Tab", none)) })
	}, `document.getElementById('out').textContent === 'new tab'`},
	{"Radix UI", "radix", "submenu", "a submenu opened from its trigger", func(a *agent) error {
		return steps(func() error { return a.openTP("radix") },
			func() error { return e(a.click("button", "Customise", none)) },
			func() error {
				txt, err := a.click("menuitem", "More Tools", none)
				return a.want(txt, err, "Developer Tools")
			},
			func() error { return e(a.click("menuitem", "Developer Tools", none)) })
	}, `document.getElementById('out').textContent === 'dev tools'`},
	{"Radix UI", "radix", "checkbox-item", "a checkbox item in a menu", func(a *agent) error {
		return steps(func() error { return a.openTP("radix") },
			func() error { return e(a.click("button", "Customise", none)) },
			func() error { return e(a.click("menuitemcheckbox", "Show Bookmarks", none)) })
	}, `document.getElementById('state').textContent.includes('|true|')`},
	{"Radix UI", "radix", "dialog", "a dialog: a field typed into, saved", func(a *agent) error {
		return steps(func() error { return a.openTP("radix") },
			func() error {
				txt, err := a.click("button", "Edit profile", none)
				return a.want(txt, err, "Make changes")
			},
			func() error { return e(a.typeInto("textbox", "Name", "Ada Lovelace", true, false)) },
			func() error { return e(a.click("button", "Save changes", none)) })
	}, `document.getElementById('state').textContent.startsWith('Ada Lovelace|')`},
	{"Radix UI", "radix", "popover", "a popover with a field", func(a *agent) error {
		return steps(func() error { return a.openTP("radix") },
			func() error {
				txt, err := a.click("button", "Dimensions", none)
				return a.want(txt, err, "Set the width.")
			},
			func() error { return e(a.typeInto("textbox", "Width", "50%", true, false)) })
	}, `document.getElementById('out').textContent === 'width 50%'`},
	{"Radix UI", "radix", "slider", "a slider thumb moved by keys", func(a *agent) error {
		return steps(func() error { return a.openTP("radix") },
			func() error { return e(a.press("slider", "Volume", "End")) })
	}, `document.getElementById('state').textContent.endsWith('|100')`},

	// react-datepicker.
	{"react-datepicker", "react-datepicker", "pick", "a calendar in a popper: next month, a day", func(a *agent) error {
		return steps(func() error { return a.openTP("react-datepicker") },
			func() error { txt, err := a.click("textbox", "Due date", none); return a.want(txt, err, "March") },
			func() error { return e(a.click("button", "Next Month", none)) },
			func() error { return e(a.click("gridcell", "Choose Monday, April 14th, 2025", none)) })
	}, `document.getElementById('out').textContent === '2025-4-14'`},
	{"react-datepicker", "react-datepicker", "type", "a date typed into the field", func(a *agent) error {
		return steps(func() error { return a.openTP("react-datepicker") },
			func() error { return e(a.typeInto("textbox", "Due date", "2025-06-30", true, true)) })
	}, `document.getElementById('out').textContent === '2025-6-30'`},

	// react-select.
	{"react-select", "react-select", "single", "select on react-select", func(a *agent) error {
		return steps(func() error { return a.openTP("react-select") },
			func() error { return e(a.pick("combobox", "Flavour", "Vanilla")) })
	}, `document.getElementById('out').textContent.startsWith('vanilla|')`},
	{"react-select", "react-select", "type-click", "typing filters, an option is clicked", func(a *agent) error {
		return steps(func() error { return a.openTP("react-select") },
			func() error {
				txt, err := a.typeInto("combobox", "Flavour", "str", false, false)
				return a.want(txt, err, "Strawberry")
			},
			func() error { return e(a.click("option", "Strawberry", none)) })
	}, `document.getElementById('out').textContent.startsWith('strawberry|')`},
	{"react-select", "react-select", "multi", "a multi-select: two values", func(a *agent) error {
		return steps(func() error { return a.openTP("react-select") },
			func() error { return e(a.pick("combobox", "Toppings", "Chocolate", "Pistachio")) })
	}, `document.getElementById('out').textContent.endsWith('|chocolate,pistachio')`},

	// MUI.
	{"MUI", "mui", "select", "MUI's Select: a button and a listbox in a portal", func(a *agent) error {
		return steps(func() error { return a.openTP("mui") },
			func() error { return e(a.pick("combobox", "Age", "Twenty")) })
	}, `document.getElementById('state').textContent.startsWith('20|')`},
	{"MUI", "mui", "select-click", "MUI's Select opened, an option clicked", func(a *agent) error {
		return steps(func() error { return a.openTP("mui") },
			func() error { txt, err := a.click("combobox", "Age", none); return a.want(txt, err, "Thirty") },
			func() error { return e(a.click("option", "Thirty", none)) })
	}, `document.getElementById('state').textContent.startsWith('30|')`},
	{"MUI", "mui", "autocomplete", "MUI's Autocomplete filtered by typing", func(a *agent) error {
		return steps(func() error { return a.openTP("mui") },
			func() error {
				txt, err := a.typeInto("combobox", "Movie", "inc", false, false)
				return a.want(txt, err, "Inception")
			},
			func() error { return e(a.click("option", "Inception", none)) })
	}, `document.getElementById('state').textContent.split('|')[1] === 'Inception'`},
	{"MUI", "mui", "menu", "a menu anchored to a button", func(a *agent) error {
		return steps(func() error { return a.openTP("mui") },
			func() error { txt, err := a.click("button", "ACCOUNT", none); return a.want(txt, err, "Logout") },
			func() error { return e(a.click("menuitem", "Logout", none)) })
	}, `document.getElementById('out').textContent === 'logout'`},
	{"MUI", "mui", "checkbox", "a checkbox drawn over a hidden input", func(a *agent) error {
		return steps(func() error { return a.openTP("mui") },
			func() error { return e(a.click("checkbox", "I accept the terms", none)) })
	}, `document.getElementById('state').textContent.split('|')[2] === 'true'`},
	{"MUI", "mui", "tabs", "tabs", func(a *agent) error {
		return steps(func() error { return a.openTP("mui") },
			func() error { txt, err := a.click("tab", "BILLING", none); return a.want(txt, err, "no invoices") })
	}, `document.getElementById('state').textContent.endsWith('|1')`},
	{"MUI", "mui", "dialog", "a dialog with a field", func(a *agent) error {
		return steps(func() error { return a.openTP("mui") },
			func() error {
				txt, err := a.click("button", "INVITE MEMBER", none)
				return a.want(txt, err, "Invite a member")
			},
			func() error { return e(a.typeInto("textbox", "Email address", "ann@example.com", false, false)) },
			func() error { return e(a.click("button", "SEND INVITE", none)) })
	}, `document.getElementById('out').textContent === 'invited ann@example.com'`},

	// TanStack Table.
	{"TanStack Table", "tanstack-table", "sort", "a header sorts on click", func(a *agent) error {
		return steps(func() error { return a.openTP("tanstack-table") },
			// Numbers sort from the largest first.
			func() error { txt, err := a.click("columnheader", "Age", none); return a.want(txt, err, "Age ▼") },
			func() error { txt, err := a.click("columnheader", "Age ▼", none); return a.want(txt, err, "Age ▲") })
	}, `document.querySelector('thead th:nth-child(3)').textContent === 'Age ▲' && document.querySelector('tbody tr td:nth-child(3)').textContent === '20'`},
	{"TanStack Table", "tanstack-table", "filter", "a search filters the rows", func(a *agent) error {
		return steps(func() error { return a.openTP("tanstack-table") },
			func() error {
				txt, err := a.typeInto("textbox", "Search people", "lima", false, false)
				return a.want(txt, err, "Carol")
			})
	}, `document.querySelectorAll('tbody tr').length === 4`},
	{"TanStack Table", "tanstack-table", "select", "row checkboxes", func(a *agent) error {
		return steps(func() error { return a.openTP("tanstack-table") },
			func() error { return e(a.click("checkbox", "Select Bob", none)) },
			func() error { return e(a.click("checkbox", "Select Erin", none)) })
	}, `document.getElementById('out').textContent === 'Bob,Erin'`},
	{"TanStack Table", "tanstack-table", "page", "the next page, then a row on it", func(a *agent) error {
		return steps(func() error { return a.openTP("tanstack-table") },
			func() error { txt, err := a.click("button", "Next", none); return a.want(txt, err, "Page 2 of 3") },
			func() error { return e(a.click("checkbox", "Select Grace", none)) })
	}, `document.getElementById('out').textContent === 'Grace'`},

	// CodeMirror 6.
	{"CodeMirror", "codemirror", "type", "typing into a code editor", func(a *agent) error {
		return steps(func() error { return a.openTP("codemirror") },
			func() error {
				txt, err := a.inEditor("CodeMirror 6", "Control+End", "greet(\"Ann\");")
				return a.want(txt, err, `greet(\"Ann\");`)
			})
	}, `cm.state.doc.toString().includes('greet("Ann");')`},
	{"CodeMirror", "codemirror", "select-all", "a chord in the editor", func(a *agent) error {
		return steps(func() error { return a.openTP("codemirror") },
			func() error { return e(a.inEditor("CodeMirror 6", "Control+a", "let x = 1;")) })
	}, `cm.state.doc.toString() === 'let x = 1;'`},

	// Alpine.js.
	{"Alpine.js", "alpine", "toggle", "x-show toggled by a button", func(a *agent) error {
		return steps(func() error { return a.openTP("alpine") },
			func() error {
				txt, err := a.click("button", "Toggle details", none)
				return a.want(txt, err, "Details: delivered on Tuesday.")
			})
	}, `document.querySelector('[x-show]').style.display !== 'none'`},
	{"Alpine.js", "alpine", "counter", "spans with a click handler and a pointer cursor", func(a *agent) error {
		return steps(func() error { return a.openTP("alpine") },
			func() error { return e(a.click("", "+", none)) },
			func() error { return e(a.click("", "+", none)) },
			func() error { return e(a.click("", "−", none)) })
	}, `document.getElementById('count').textContent === '1'`},
	{"Alpine.js", "alpine", "add", "a form that adds to a list rendered by x-for", func(a *agent) error {
		return steps(func() error { return a.openTP("alpine") },
			func() error { return e(a.typeInto("textbox", "New item", "Bread", false, true)) },
			func() error {
				txt, err := a.typeInto("textbox", "New item", "Jam", false, true)
				return a.want(txt, err, "Jam")
			})
	}, `document.getElementById('items').textContent === 'MilkEggsBreadJam'`},
	{"Alpine.js", "alpine", "dblclick", "a double-click on a wide list item lands on its short text, which handles it", func(a *agent) error {
		return steps(func() error { return a.openTP("alpine") },
			func() error {
				txt, err := a.click("listitem", "Eggs", clickOpts{double: true})
				return a.want(txt, err, "Picked: Eggs")
			})
	}, `document.getElementById('picked').textContent === 'Eggs'`},

	// More of each library: the other items, the other ways in.
	{"jQuery UI", "jqueryui-autocomplete", "keys", "suggestions chosen with the arrow keys and Enter", func(a *agent) error {
		return steps(func() error { return a.openTP("jqueryui-autocomplete") },
			func() error {
				txt, err := a.typeInto("textbox", "Country:", "Ger", false, false)
				return a.want(txt, err, "Germany")
			},
			func() error { return e(a.press("textbox", "Country:", "ArrowDown")) },
			func() error { return e(a.press("textbox", "Country:", "Enter")) })
	}, `document.getElementById('country').value === 'Germany'`},
	{"jQuery UI", "jqueryui-menu", "nested", "an item of a submenu one level down", func(a *agent) error {
		return steps(func() error { return a.openTP("jqueryui-menu") },
			func() error {
				txt, err := a.click("menuitem", "Electronics", none)
				return a.want(txt, err, "Car Hifi")
			},
			func() error { return e(a.click("menuitem", "Utilities", none)) })
	}, `document.getElementById('out').textContent === 'chose Utilities'`},
	{"jQuery UI", "jqueryui-spinner", "down", "a spinner's down arrow, told from its up arrow", func(a *agent) error {
		if err := a.openTP("jqueryui-spinner"); err != nil {
			return err
		}
		down, err := a.refNear("Select a value", "down", 6)
		if err != nil {
			return err
		}
		return e(a.saw(a.tool.click(down, none)))
	}, `document.getElementById('spinner').value === '4'`},
	{"jQuery UI", "jqueryui-datepicker", "type", "a date typed into the picker's field", func(a *agent) error {
		return steps(func() error { return a.openTP("jqueryui-datepicker") },
			func() error {
				ref, err := a.refAfter("Date:")
				if err != nil {
					return err
				}
				return e(a.saw(a.tool.typeText(ref, "05/20/2025", false, false)))
			})
	}, `document.getElementById('datepicker').value === '05/20/2025'`},
	{"jQuery UI", "jqueryui-slider", "drag", "a slider handle dragged by an offset", func(a *agent) error {
		if err := a.openTP("jqueryui-slider"); err != nil {
			return err
		}
		ref, err := a.refNear("Volume", "slider", 6)
		if err != nil {
			return err
		}
		return e(a.saw(a.tool.drag(ref, "+150,0")))
	}, `+document.getElementById('amount').value >= 60 && +document.getElementById('amount').value <= 80`},
	{"jQuery UI", "jqueryui-dialog", "cancel", "a dialog's second button", func(a *agent) error {
		return steps(func() error { return a.openTP("jqueryui-dialog") },
			func() error { return e(a.click("button", "Delete account", none)) },
			func() error { return e(a.click("button", "Cancel", none)) })
	}, `document.getElementById('out').textContent === 'cancelled'`},
	{"jQuery UI", "jqueryui-sortable", "drag-down", "an item dragged down the list", func(a *agent) error {
		return steps(func() error { return a.openTP("jqueryui-sortable") },
			func() error { return e(a.drag("", "Item 2", "text", "Item 4")) })
	}, `$('#sortable li').map((i, e) => e.textContent).get().indexOf('Item 2') >= 2`},
	{"jQuery UI", "jqueryui-accordion-tabs", "third", "the third accordion section and the third tab", func(a *agent) error {
		return steps(func() error { return a.openTP("jqueryui-accordion-tabs") },
			func() error { txt, err := a.click("tab", "Section 3", none); return a.want(txt, err, "Nam enim risus") },
			func() error {
				txt, err := a.click("tab", "Aenean lacinia", none)
				return a.want(txt, err, "Mauris eleifend")
			})
	}, `$('#accordion').accordion('option', 'active') === 2 && $('#tabs').tabs('option', 'active') === 2`},
	{"jQuery UI", "jqueryui-selectmenu", "open-click", "a selectmenu opened, an option clicked", func(a *agent) error {
		return steps(func() error { return a.openTP("jqueryui-selectmenu") },
			func() error {
				txt, err := a.clickAfter("Select a speed")
				return a.want(txt, err, "Slower")
			},
			func() error { return e(a.click("", "Slower", none)) })
	}, `$('#speed').val() === 'Slower'`},

	{"Bootstrap", "bootstrap-components", "dropdown-last", "the last item of a dropdown, after a divider", func(a *agent) error {
		return steps(func() error { return a.openTP("bootstrap-components") },
			func() error { return e(a.click("button", "Actions", none)) },
			func() error { return e(a.click("link", "Delete", none)) })
	}, `document.getElementById('out').textContent === 'action: delete'`},
	{"Bootstrap", "bootstrap-components", "accordion-close", "an open accordion section closed", func(a *agent) error {
		return steps(func() error { return a.openTP("bootstrap-components") },
			func() error { return e(a.click("button", "How do I return an item?", none)) })
	}, `!document.getElementById('q1').classList.contains('show')`},
	{"Bootstrap", "bootstrap-overlays", "modal-keep", "a modal's dismiss button", func(a *agent) error {
		return steps(func() error { return a.openTP("bootstrap-overlays") },
			func() error { return e(a.click("button", "Remove project", none)) },
			func() error { return e(a.click("button", "Keep it", none)) })
	}, `bootstrap.Modal.getInstance(document.getElementById('confirm')) !== null && !document.getElementById('confirm').classList.contains('show') && document.getElementById('out').textContent === ''`},
	{"Bootstrap", "bootstrap-overlays", "carousel-prev", "a carousel's previous control wraps to the last slide", func(a *agent) error {
		return steps(func() error { return a.openTP("bootstrap-overlays") },
			func() error {
				txt, err := a.click("button", "Previous", none)
				return a.want(txt, err, "Slide three: gift cards")
			},
			func() error { return a.waitGone("Slide one: spring sale") })
	}, `document.querySelector('.carousel-item.active').textContent.includes('Slide three')`},

	{"Tom Select", "tomselect", "remove-tag", "a chosen tag removed with its × button", func(a *agent) error {
		return steps(func() error { return a.openTP("tomselect") },
			func() error { return e(a.click("combobox", "Tags", none)) },
			func() error { return e(a.click("option", "Red", none)) },
			func() error { return e(a.click("option", "Yellow", none)) },
			func() error {
				// Each chosen tag shows its text and a "×" button.
				anchor := `text "Red"`
				if a.lenient() {
					anchor = "text: Red" // Playwright MCP's `- text: Red`
				}
				ref, err := a.refInGroup(anchor, "button", "×")
				if err != nil {
					return err
				}
				return e(a.saw(a.tool.click(ref, none)))
			})
	}, `[...document.getElementById('tags').selectedOptions].map(o => o.value).join() === 'yellow'`},
	{"Choices.js", "choices", "type-filter", "typing into the search of a drawn select, then an option", func(a *agent) error {
		return steps(func() error { return a.openTP("choices") },
			func() error {
				if a.lenient() {
					return e(a.clickAfter("text: City")) // Playwright MCP's `- text: City`
				}
				return e(a.clickAfter(`text "City"`))
			},
			func() error {
				txt, err := a.typeInto("searchbox", "Choose a city", "ber", false, false)
				return a.want(txt, err, "Berlin")
			},
			func() error { return e(a.click("option", "Berlin", none)) })
	}, `document.getElementById('city').value === 'berlin'`},
	{"noUiSlider", "nouislider", "home", "a handle sent to its end with Home", func(a *agent) error {
		return steps(func() error { return a.openTP("nouislider") },
			func() error {
				txt, err := a.press("slider", "Lowest price", "Home")
				return a.want(txt, err, "Price: 0 to 80")
			})
	}, `document.getElementById('lo').textContent === '0'`},
	{"Headless UI", "headlessui", "menu-last", "the last item of a menu", func(a *agent) error {
		return steps(func() error { return a.openTP("headlessui") },
			func() error { return e(a.click("button", "Options", none)) },
			func() error { return e(a.click("menuitem", "Archive", none)) })
	}, `document.getElementById('out').textContent === 'archive'`},
	{"Headless UI", "headlessui", "listbox-select", "select on a listbox button", func(a *agent) error {
		return steps(func() error { return a.openTP("headlessui") },
			func() error { return e(a.pick("button", "Assigned to Wade Cooper", "Devon Webb")) })
	}, `document.getElementById('state').textContent.startsWith('Devon Webb|')`},
	{"Radix UI", "radix", "dialog-close", "a dialog's × button named by aria-label", func(a *agent) error {
		return steps(func() error { return a.openTP("radix") },
			func() error { return e(a.click("button", "Edit profile", none)) },
			func() error { txt, err := a.click("button", "Close", none); return a.want(txt, err, "Edit profile") })
	}, `document.body.dataset.dialogOpened === '1' && !document.querySelector('[role=dialog]') && document.getElementById('state').textContent.startsWith('Pedro Duarte|')`},
	{"react-datepicker", "react-datepicker", "previous", "the previous month", func(a *agent) error {
		return steps(func() error { return a.openTP("react-datepicker") },
			func() error { return e(a.click("textbox", "Due date", none)) },
			func() error {
				txt, err := a.click("button", "Previous Month", none)
				return a.want(txt, err, "February 2025")
			},
			func() error { return e(a.click("gridcell", "Choose Friday, February 14th, 2025", none)) })
	}, `document.getElementById('out').textContent === '2025-2-14'`},
	{"react-select", "react-select", "multi-type", "a multi-select filled by typing and Enter", func(a *agent) error {
		return steps(func() error { return a.openTP("react-select") },
			func() error { return e(a.typeInto("combobox", "Toppings", "van", false, false)) },
			func() error { return e(a.press("combobox", "Toppings", "Enter")) })
	}, `document.getElementById('out').textContent.endsWith('|vanilla')`},
	{"MUI", "mui", "autocomplete-select", "select on MUI's Autocomplete", func(a *agent) error {
		return steps(func() error { return a.openTP("mui") },
			func() error { return e(a.pick("combobox", "Movie", "Fight Club")) })
	}, `document.getElementById('state').textContent.split('|')[1] === 'Fight Club'`},
	{"MUI", "mui", "dialog-cancel", "a dialog's cancel button", func(a *agent) error {
		return steps(func() error { return a.openTP("mui") },
			func() error { return e(a.click("button", "INVITE MEMBER", none)) },
			func() error { txt, err := a.click("button", "CANCEL", none); return a.want(txt, err, "INVITE MEMBER") })
	}, `document.body.dataset.dialogOpened === '1' && !document.querySelector('[role=dialog]') && document.getElementById('out').textContent === ''`},
	{"TanStack Table", "tanstack-table", "sort-name", "a text column sorts A to Z first", func(a *agent) error {
		return steps(func() error { return a.openTP("tanstack-table") },
			func() error { txt, err := a.click("columnheader", "Name", none); return a.want(txt, err, "Name ▲") })
	}, `document.querySelector('thead th:nth-child(2)').textContent === 'Name ▲' && document.querySelector('tbody tr td:nth-child(2)').textContent === 'Alice'`},
	{"TanStack Table", "tanstack-table", "last-page", "the last page", func(a *agent) error {
		return steps(func() error { return a.openTP("tanstack-table") },
			func() error { return e(a.click("button", "Next", none)) },
			func() error { txt, err := a.click("button", "Next", none); return a.want(txt, err, "Page 3 of 3") },
			func() error { return e(a.click("checkbox", "Select Niaj", none)) })
	}, `document.getElementById('out').textContent === 'Niaj'`},
	{"CodeMirror", "codemirror", "newline", "Enter in a code editor, then a line typed", func(a *agent) error {
		return steps(func() error { return a.openTP("codemirror") },
			func() error { return e(a.inEditor("CodeMirror 6", "Control+Home", "// greeting")) })
	}, `cm.state.doc.line(1).text.startsWith('// greeting')`},
	{"Alpine.js", "alpine", "toggle-twice", "x-show toggled open and shut", func(a *agent) error {
		return steps(func() error { return a.openTP("alpine") },
			func() error { return e(a.click("button", "Toggle details", none)) },
			func() error {
				txt, err := a.click("button", "Toggle details", none)
				if err == nil && a.lenient() {
					// "collapsed" is browserd's word; a snapshot shows the
					// details gone.
					if strings.Contains(txt, "Details: delivered on Tuesday.") {
						return fmt.Errorf("the answer still shows the details:\n%s", txt)
					}
					return nil
				}
				return a.want(txt, err, "collapsed")
			})
	}, `document.querySelector('[x-show]').style.display === 'none' && Alpine.$data(document.querySelector('[x-data]')).toggles === 2`},
	{"Lit", "lit-todo", "last", "the last item's hover-only button", func(a *agent) error {
		return steps(func() error { return a.openTP("lit-todo") },
			func() error { return e(a.hover("", "Buy stamps")) },
			func() error {
				ref, err := a.refInGroup("Buy stamps", "button", "Delete")
				if err != nil {
					return err
				}
				return e(a.saw(a.tool.click(ref, none)))
			})
	}, `document.getElementById('out').textContent === 'deleted Buy stamps'`},
	{"React", "react-shop", "first", "the first card's button", func(a *agent) error {
		return steps(func() error { return a.openTP("react-shop") },
			func() error {
				ref, err := a.refInGroup("Backpack", "button", "Add to cart")
				if err != nil {
					return err
				}
				txt, err := a.saw(a.tool.click(ref, none))
				return a.want(txt, err, "Total: $49.99")
			})
	}, `document.getElementById('cart').textContent === 'Backpack'`},
	{"Quill", "quill", "italic", "italic from the toolbar for what is typed next", func(a *agent) error {
		return steps(func() error { return a.openTP("quill") },
			func() error { return e(a.click("textbox", "Meeting notes", none)) },
			func() error { return e(a.press("textbox", "Meeting notes", "End")) },
			func() error { return e(a.click("button", "italic", none)) },
			func() error { return e(a.typeInto("textbox", "Meeting notes", " (draft)", false, false)) })
	}, `!!quill.root.querySelector('em') && quill.root.querySelector('em').textContent.includes('draft')`},
	{"SortableJS", "sortablejs", "to-empty-side", "a card dragged onto the other column's heading area", func(a *agent) error {
		return steps(func() error { return a.openTP("sortablejs") },
			func() error { return e(a.drag("", "Write tests", "", "Set up CI")) })
	}, `document.getElementById('done').textContent.includes('Write tests')`},

	// Select2.
	{"Select2", "select2", "single", "select on a Select2 box (a hidden select and a drawn combobox)", func(a *agent) error {
		return steps(func() error { return a.openTP("select2") },
			func() error {
				// Select2's box is named by what it shows; it follows its label.
				ref, err := a.refAfter("State")
				if err != nil {
					return err
				}
				return e(a.pickRef(ref, "Colorado"))
			})
	}, `$('#state').val() === 'CO'`},
	{"Select2", "select2", "search", "a Select2 box opened, searched, an option clicked", func(a *agent) error {
		return steps(func() error { return a.openTP("select2") },
			func() error {
				txt, err := a.clickAfter("State")
				return a.want(txt, err, "Wyoming")
			},
			func() error { return e(a.click("option", "New York", none)) })
	}, `$('#state').val() === 'NY'`},
	{"Select2", "select2", "multi", "a Select2 multi-select: two values", func(a *agent) error {
		return steps(func() error { return a.openTP("select2") },
			func() error {
				ref, err := a.refAfter("Languages")
				if err != nil {
					return err
				}
				return e(a.pickRef(ref, "Rust", "Go"))
			})
	}, `$('#langs').val().sort().join() === 'go,rust'`},

	// SweetAlert2.
	{"SweetAlert2", "sweetalert2", "confirm", "a modal alert's confirm button", func(a *agent) error {
		return steps(func() error { return a.openTP("sweetalert2") },
			func() error {
				txt, err := a.click("button", "Delete file", none)
				return a.want(txt, err, "Are you sure?")
			},
			func() error { return e(a.click("button", "Yes, delete it!", none)) })
	}, `document.getElementById('out').textContent === 'deleted'`},
	{"SweetAlert2", "sweetalert2", "cancel", "a modal alert's cancel button", func(a *agent) error {
		return steps(func() error { return a.openTP("sweetalert2") },
			func() error { return e(a.click("button", "Delete file", none)) },
			func() error { return e(a.click("button", "Cancel", none)) })
	}, `document.getElementById('out').textContent === 'kept'`},
	{"SweetAlert2", "sweetalert2", "prompt", "a prompt's field typed into and confirmed", func(a *agent) error {
		return steps(func() error { return a.openTP("sweetalert2") },
			func() error { txt, err := a.click("button", "Rename file", none); return a.want(txt, err, "File name") },
			func() error { return e(a.typeInto("textbox", "File name", "notes.txt", false, false)) },
			func() error { return e(a.click("button", "OK", none)) })
	}, `document.getElementById('out').textContent === 'renamed to notes.txt'`},

	// Shoelace: web components, controls inside shadow roots.
	{"Shoelace", "shoelace", "input", "a text field inside a web component", func(a *agent) error {
		return steps(func() error { return a.openTP("shoelace") },
			func() error { return e(a.typeInto("textbox", "Your name", "Ada", false, false)) })
	}, `document.getElementById('name').value === 'Ada'`},
	{"Shoelace", "shoelace", "select", "a select drawn in a shadow root", func(a *agent) error {
		return steps(func() error { return a.openTP("shoelace") },
			func() error { return e(a.pick("combobox", "Size", "Large")) })
	}, `document.getElementById('size').value === 'l'`},
	{"Shoelace", "shoelace", "checkbox-switch", "a checkbox and a switch in shadow roots", func(a *agent) error {
		return steps(func() error { return a.openTP("shoelace") },
			func() error { return e(a.click("checkbox", "Send me the newsletter", none)) },
			func() error { return e(a.click("switch", "Dark mode", none)) })
	}, `document.getElementById('news').checked && document.getElementById('dark').checked`},
	{"Shoelace", "shoelace", "dropdown", "a dropdown menu of web components", func(a *agent) error {
		return steps(func() error { return a.openTP("shoelace") },
			func() error { txt, err := a.click("button", "Edit", none); return a.want(txt, err, "Paste") },
			func() error { return e(a.click("menuitem", "Paste", none)) })
	}, `document.getElementById('out').textContent === 'menu: paste'`},
	{"Shoelace", "shoelace", "dialog", "a dialog with a slotted button", func(a *agent) error {
		return steps(func() error { return a.openTP("shoelace") },
			func() error {
				txt, err := a.click("button", "Open dialog", none)
				return a.want(txt, err, "Do you accept the terms?")
			},
			func() error { return e(a.click("button", "Accept", none)) })
	}, `document.getElementById('out').textContent === 'accepted'`},
	{"Shoelace", "shoelace", "tabs", "tabs of a tab group", func(a *agent) error {
		return steps(func() error { return a.openTP("shoelace") },
			func() error {
				txt, err := a.click("tab", "Custom", none)
				return a.want(txt, err, "Custom settings: none yet.")
			})
	}, `document.querySelector('sl-tab-panel[name=custom]').active`},
	{"Bootstrap", "bootstrap-components", "tabs-back", "a tab and back to the first", func(a *agent) error {
		return steps(func() error { return a.openTP("bootstrap-components") },
			func() error { return e(a.click("tab", "Profile", none)) },
			func() error { txt, err := a.click("tab", "Home", none); return a.want(txt, err, "Welcome home.") })
	}, `bootstrap.Tab.getInstance(document.getElementById('profile-tab')) !== null && document.getElementById('home').classList.contains('active')`},
	{"Radix UI", "radix", "submenu-first", "the first item of a submenu", func(a *agent) error {
		return steps(func() error { return a.openTP("radix") },
			func() error { return e(a.click("button", "Customise", none)) },
			func() error { return e(a.click("menuitem", "More Tools", none)) },
			func() error { return e(a.click("menuitem", "Save Page As…", none)) })
	}, `document.getElementById('out').textContent === 'save page'`},
	{"MUI", "mui", "select-first", "MUI's Select: the first option", func(a *agent) error {
		return steps(func() error { return a.openTP("mui") },
			func() error { return e(a.click("combobox", "Age", none)) },
			func() error { return e(a.click("option", "Ten", none)) })
	}, `document.getElementById('state').textContent.startsWith('10|')`},
	{"react-select", "react-select", "open-click", "react-select opened with a click, an option clicked", func(a *agent) error {
		return steps(func() error { return a.openTP("react-select") },
			func() error { txt, err := a.click("combobox", "Flavour", none); return a.want(txt, err, "Chocolate") },
			func() error { return e(a.click("option", "Chocolate", none)) })
	}, `document.getElementById('out').textContent.startsWith('chocolate|')`},
	{"Shoelace", "shoelace", "select-click", "a shadow-root select opened, an option clicked", func(a *agent) error {
		return steps(func() error { return a.openTP("shoelace") },
			func() error { txt, err := a.click("combobox", "Size", none); return a.want(txt, err, "Medium") },
			func() error { return e(a.click("option", "Medium", none)) })
	}, `document.getElementById('size').value === 'm'`},
	{"React", "react-shop", "login-in-url", "a URL with a login opens the page behind it; a tool that refuses it must say how to give the login, without showing it", func(a *agent) error {
		// The agent is given a URL with the login in it. Each tool is scored
		// on the page behind the login being open; a tool that refuses such
		// a URL (browserd) must also say how to give the login instead and
		// not echo the password, and the agent then does as it says.
		u, _ := url.Parse(site.URL("/auth/basic"))
		u.User = url.UserPassword(testsite.BasicUser, testsite.BasicPassword)
		txt, err := a.saw(a.tool.navigate(u.String()))
		if err == nil {
			return a.want(txt, nil, "Welcome, "+testsite.BasicUser)
		}
		_, refusal, _ := strings.Cut(err.Error(), " refused")
		if !strings.Contains(refusal, `"httpCredentials"`) || strings.Contains(refusal, "s3cret") {
			return fmt.Errorf("the refusal does not say how to give the login (or shows it): %v\n%s", err, txt)
		}
		if _, err := a.tool.login(strings.TrimSuffix(site.URL("/"), "/"), testsite.BasicUser, testsite.BasicPassword); err != nil {
			return err
		}
		txt, err = a.saw(a.tool.navigate(site.URL("/auth/basic")))
		return a.want(txt, err, "Welcome, "+testsite.BasicUser)
	}, `location.pathname === '/auth/basic' && document.querySelector('h1').textContent === 'Welcome, ann'`},
}

// ensureThirdParty builds the third-party corpus when it is not built yet
// (make test builds it first).
func ensureThirdParty(t *testing.T) {
	if testsite.ThirdPartyBuilt() == nil {
		return
	}
	script := filepath.Join(testsite.ThirdPartyDir(), "..", "..", "..", "scripts", "build-thirdparty.sh")
	out, err := exec.Command("bash", script).CombinedOutput()
	if err != nil {
		t.Fatalf("building the third-party corpus (%s): %v\n%s", script, err, out)
	}
	if err := testsite.ThirdPartyBuilt(); err != nil {
		t.Fatal(err)
	}
}

// tpParallel is how many tasks run at once, each in its own tab of one
// browser.
const tpParallel = 3

// runThirdParty drives the selected tasks, parallel at a time, with the
// tools newTool makes (one per task), and returns the outcomes by key.
func runThirdParty(parallel int, newTool func(i int) confTool) map[string]confResult {
	var jobs []confJob
	for i, c := range tpTasks {
		if confSelected(c.page) || confSelected(c.key()) {
			jobs = append(jobs, confJob{i: i, key: c.key(), run: c.run, check: c.check})
		}
	}
	return runJobs(parallel, jobs, newTool)
}

// TestConformanceThirdParty drives every task of the third-party corpus
// through MCP; browserd must finish every one.
func TestConformanceThirdParty(t *testing.T) {
	ensureThirdParty(t)
	covered := map[string]bool{}
	libs := map[string]bool{}
	for _, c := range tpTasks {
		covered[c.page] = true
		libs[c.lib] = true
	}
	for _, p := range testsite.ThirdPartyPages() {
		if !covered[p] {
			t.Errorf("third-party page %s has no task", p)
		}
	}
	d := newMCPDriver(t, confFlags...)
	res := runThirdParty(tpParallel, func(i int) confTool { return &browserdTool{t: t, d: d, task: fmt.Sprintf("tp%d", i)} })
	passed := 0
	for _, c := range tpTasks {
		r, ran := res[c.key()]
		if !ran {
			continue
		}
		if r.pass {
			passed++
		} else {
			t.Errorf("%s (%s, %s): %v", c.key(), c.lib, c.what, r.err)
		}
	}
	t.Logf("browserd finished %d of %d third-party tasks (%d libraries)", passed, len(res), len(libs))
	writeThirdParty(t, "browserd", res)
}

// TestConformanceThirdPartyPlaywright drives the third-party corpus through
// Playwright MCP, one task at a time, for docs/conformance.md (make
// conformance-peers); it never fails on Playwright's results.
func TestConformanceThirdPartyPlaywright(t *testing.T) {
	ensureThirdParty(t)
	res := runThirdParty(1, playwrightTools(t))
	passed := 0
	for _, c := range tpTasks {
		if r, ran := res[c.key()]; !ran {
			continue
		} else if r.pass {
			passed++
		} else {
			msg := fmt.Sprint(r.err)
			if len(msg) > 200 {
				msg = msg[:200] + "…"
			}
			t.Logf("playwright: %s: %s", c.key(), strings.ReplaceAll(msg, "\n", " "))
		}
	}
	t.Logf("Playwright MCP finished %d of %d third-party tasks", passed, len(res))
	writeThirdParty(t, "playwright-mcp", res)
}

// writeThirdParty appends one tool's results to the JSON file named by
// BROWSERD_CONFORMANCE_OUT, if set, in writeConformance's rows (Page is
// "tp/PAGE:TASK").
func writeThirdParty(t *testing.T, tool string, res map[string]confResult) {
	var rows []confRow
	for _, c := range tpTasks {
		if r, ran := res[c.key()]; ran {
			rows = append(rows, newConfRow(tool, "tp/"+c.key(), c.lib+": "+c.what, r))
		}
	}
	writeRows(t, rows)
}
