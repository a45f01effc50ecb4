package snapshot

import (
	"strconv"
	"strings"
)

// Part says what was read of a frame too big to read whole (a page of
// 100,000 links): its elements from the start of the document — or from
// the element a snapshot asked for, with what follows it — up to a budget,
// with the elements above them (each without the rest of its subtree).
type Part struct {
	// Elements is how many elements the frame has (shadow trees included),
	// at least; Read is how many of them were read.
	Elements, Read int
	// Max is the most elements a read takes.
	Max int
	// From: the read starts at the element the snapshot asked for (a
	// selector or a ref), not at the start of the document.
	From bool
}

// partNote is the line that says what the frames read in part left out,
// "" when every frame was read whole.
func partNote(frames []Frame) string {
	var notes []string
	for _, f := range frames {
		if f.Part != nil {
			notes = append(notes, f.Part.note(f.ParentKey != ""))
		}
	}
	return strings.Join(notes, "\n")
}

// note is the Part's line.
func (p *Part) note(child bool) string {
	what, which := "page", "the first "+Commas(p.Read)+" of them in document order"
	if child {
		what = "frame"
	}
	if p.From {
		which = Commas(p.Read) + " of them, in document order from the element asked for on"
	}
	return "[" + what + " too big to read whole: it has " + Commas(p.Elements) + " elements, more than the " + Commas(p.Max) +
		" a snapshot reads; this one shows " + which + " and leaves out the other " + Commas(max(p.Elements-p.Read, 0)) +
		" — to read another part, snapshot with selector=\"…\" of an element in it (the " + what + " is read from there on), or extract it]"
}

// renderNoted renders items with the note of frames read in part as the
// last line, within opt.MaxChars like the rest. The note is never cut: a
// budget with too little room for lines besides it gets the note alone.
func renderNoted(items []*item, opt Options, note string) Result {
	if note == "" {
		return render(items, opt)
	}
	if opt.MaxChars > 0 {
		opt.MaxChars -= len(note) + 1
		if opt.MaxChars < minLines {
			r := render(items, Options{Interactive: opt.Interactive, Depth: opt.Depth})
			return Result{Text: note, Omitted: strings.Count(r.Text, "\n") + 1}
		}
	}
	r := render(items, opt)
	if r.Text == "" {
		r.Text = note
	} else {
		r.Text += "\n" + note
	}
	return r
}

// minLines is the least budget worth a snapshot's lines besides a note.
const minLines = 80

// Commas writes n with thousands separators: 100,000.
func Commas(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
