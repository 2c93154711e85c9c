package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// List is one package's mutation list: the package whose tests judge each
// breakage, and the breakages themselves.
type List struct {
	// Name is the list's name: its file name without ".txt".
	Name string
	// Pkg is the package pattern given to "go test" (from the "pkg:"
	// header); it defaults to "./" + Name with "-" read as "/".
	Pkg string
	// Flags are extra "go test" flags (from the "flags:" header).
	Flags []string
	// Mutations are the list's entries in file order.
	Mutations []Mutation
}

// Mutation is one small breakage: in File, the exact text Original (which
// must occur exactly once) is replaced by Replacement.
type Mutation struct {
	ID          string // short, unique within the list
	Breaks      string // the guarantee or documented behaviour it breaks
	File        string // relative to the repository root
	Original    string
	Replacement string
	Line        int // where the entry starts in the list file
	// Equivalent, when set, says why the breakage cannot change any
	// observable behaviour: the run still applies it, expects it to survive
	// and leaves it out of the score.
	Equivalent string
}

// Markers of the list format (see scripts/README.md). None of them can start
// a line of gofmt-ed Go code.
const (
	entryMarker    = "=== "
	originalMarker = "<<<<"
	replaceMarker  = "===="
	endMarker      = ">>>>"
)

// ParseList reads a list in the format described in scripts/README.md.
func ParseList(name string, r io.Reader) (*List, error) {
	l := &List{Name: name, Pkg: "./" + strings.ReplaceAll(name, "-", "/")}
	if name == "root" {
		l.Pkg = "."
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	lineNo := 0
	var cur *Mutation
	var block *[]string // the snippet being read, if any
	var orig, repl []string
	seen := map[string]int{}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s.txt:%d: %s", name, lineNo, fmt.Sprintf(format, args...))
	}
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if block != nil {
			switch line {
			case replaceMarker:
				if block != &orig {
					return nil, fail("%q outside an original snippet", replaceMarker)
				}
				block = &repl
				continue
			case endMarker:
				if block != &repl {
					return nil, fail("%q before %q", endMarker, replaceMarker)
				}
				cur.Original = strings.Join(orig, "\n")
				cur.Replacement = strings.Join(repl, "\n")
				if cur.Original == "" {
					return nil, fail("entry %s: empty original snippet", cur.ID)
				}
				if cur.Original == cur.Replacement {
					return nil, fail("entry %s: the replacement equals the original", cur.ID)
				}
				l.Mutations = append(l.Mutations, *cur)
				cur, block, orig, repl = nil, nil, nil, nil
				continue
			}
			*block = append(*block, line)
			continue
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case strings.HasPrefix(line, entryMarker):
			if cur != nil {
				return nil, fail("entry %s has no snippet", cur.ID)
			}
			id, breaks, ok := strings.Cut(strings.TrimPrefix(line, entryMarker), ":")
			id, breaks = strings.TrimSpace(id), strings.TrimSpace(breaks)
			if !ok || id == "" || breaks == "" || strings.ContainsAny(id, " \t") {
				return nil, fail("want %q", "=== <id>: <what it breaks>")
			}
			if prev, dup := seen[id]; dup {
				return nil, fail("entry %s already defined at line %d", id, prev)
			}
			seen[id] = lineNo
			cur = &Mutation{ID: id, Breaks: breaks, Line: lineNo}
		case strings.HasPrefix(line, "file:"):
			if cur == nil {
				return nil, fail("file: outside an entry")
			}
			cur.File = strings.TrimSpace(strings.TrimPrefix(line, "file:"))
		case strings.HasPrefix(line, "equivalent:"):
			if cur == nil {
				return nil, fail("equivalent: outside an entry")
			}
			cur.Equivalent = strings.TrimSpace(strings.TrimPrefix(line, "equivalent:"))
		case line == originalMarker:
			if cur == nil || cur.File == "" {
				return nil, fail("%q needs an entry with a file: line first", originalMarker)
			}
			block = &orig
		case strings.HasPrefix(line, "pkg:") && cur == nil && len(l.Mutations) == 0:
			l.Pkg = strings.TrimSpace(strings.TrimPrefix(line, "pkg:"))
		case strings.HasPrefix(line, "flags:") && cur == nil && len(l.Mutations) == 0:
			l.Flags = strings.Fields(strings.TrimPrefix(line, "flags:"))
		default:
			return nil, fail("unexpected line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s.txt: %w", name, err)
	}
	if block != nil || cur != nil {
		return nil, fail("the last entry is not closed with %q", endMarker)
	}
	return l, nil
}
