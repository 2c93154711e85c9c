package informer_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// externalNames are CamelCase names that doc comments use for things
// outside this repository's code (Go's and Kubernetes' APIs, test and
// benchmark names); any other CamelCase word in a doc comment must be an
// identifier of the repository.
var externalNames = []string{
	"AppendInt", "DeepEqual", "DisallowUnknownFields", "EqualFold", "ErrNotExist", "ErrUnexpectedEOF",
	"ExecCredential", "FieldsV1", "HeapAlloc", "KiB", "MiB", "GiB", "MemStats", "NaN", "NotOlderThan",
	"PartialObjectMetadataList", "PathListSeparator", "ShardedListAndWatch", "PodDisruptionBudget", "RawExtension", "ReadMemStats",
	"TextUnmarshaler", "TextUnmarshalers", "UnmarshalJSON", "UnmarshalTypeError", "UseNumber",
	"TooManyRequests", "CustomResourceDefinition", "RecommendedHome", "WithTweakListOptions",
	"SharedInformerFactory", "FastAPI", "MyCRD", "TestSomething", "BenchmarkFootprint", "UnmarshalCaseSensitivePreserveInts",
	"AlreadyExists", "FieldValueInvalid", "FieldValueRequired", "DeepCopy", "BenchmarkScale", "VmHWM",
	"WatchListClient", "ConsistentListFromCache", "ListFromCacheSnapshot", "BenchmarkRealServer", "GitHub",
	"OpenTelemetry", "DefaultRegisterer",
}

var (
	camelWord = regexp.MustCompile(`\b[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+\b`)
	qualified = regexp.MustCompile(`\b([A-Z][A-Za-z0-9]*)\.([A-Z][A-Za-z0-9]*)\b`)
	docLink   = regexp.MustCompile(`\[(\*?)([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\]`)
)

// docPackage is what the check knows of one package: its doc comments
// and the names it declares.
type docPackage struct {
	dir     string
	name    string
	docs    []*ast.CommentGroup
	decls   map[string]bool            // top-level names
	members map[string]map[string]bool // type → fields and methods
	embeds  map[string]bool            // types with embedded fields (members not all known)
}

// TestDocReferences checks the doc comments of every package of the
// repository: a bracketed link [Name] or [Type.Member] names something
// the package declares; Type.Member for a type of the package names one
// of its fields or methods; and every other CamelCase word is an
// identifier of the repository's code or a known outside name. It found
// a Handler doc that named a SlowHandlerPolicy that no longer existed.
func TestDocReferences(t *testing.T) {
	pkgs, known := loadDocPackages(t, ".")
	byName := map[string]*docPackage{}
	for _, p := range pkgs {
		if _, dup := byName[p.name]; !dup {
			byName[p.name] = p
		}
	}
	for _, n := range externalNames {
		known[n] = true
	}
	for _, p := range pkgs {
		for _, cg := range p.docs {
			text := cg.Text()
			pos := p.dir
			for _, m := range docLink.FindAllStringSubmatchIndex(text, -1) {
				if end := m[1]; end < len(text) && (text[end] == '(' || text[end] == ':') {
					continue // a Markdown link or a link definition
				}
				if start := m[0]; start > 0 && isIdentByte(text[start-1]) {
					continue // an index or type arguments: Informer[T], data[i]
				}
				ref := text[m[4]:m[5]]
				if msg := p.resolve(ref, byName); msg != "" {
					t.Errorf("%s: doc link [%s]: %s (in %q)", pos, ref, msg, firstLine(text))
				}
			}
			for _, i := range qualified.FindAllStringSubmatchIndex(text, -1) {
				if i[0] > 0 && text[i[0]-1] == '.' {
					continue // pkg.Type.Member: another package's
				}
				typ, member := text[i[2]:i[3]], text[i[4]:i[5]]
				if p.members[typ] == nil || p.embeds[typ] || p.members[typ][member] {
					continue
				}
				t.Errorf("%s: %s.%s: %s has no field or method %s (in %q)", pos, typ, member, typ, member, firstLine(text))
			}
			for _, w := range camelWord.FindAllString(text, -1) {
				if !known[w] {
					t.Errorf("%s: %s is no identifier of the repository (in %q); fix the reference, or add an outside name to externalNames", pos, w, firstLine(text))
				}
			}
		}
	}
}

// resolve returns "" when ref names something, else why not.
func (p *docPackage) resolve(ref string, byName map[string]*docPackage) string {
	parts := strings.Split(ref, ".")
	target := p
	if len(parts) > 1 && !p.decls[parts[0]] {
		q, ok := byName[parts[0]]
		if !ok {
			return "" // another module's package: not checked
		}
		target, parts = q, parts[1:]
	}
	switch {
	case !target.decls[parts[0]]:
		if len(parts) == 1 && slices.Contains([]string{"error", "string", "any", "bool", "int", "nil"}, parts[0]) {
			return ""
		}
		return "package " + target.name + " declares no " + parts[0]
	case len(parts) == 2 && target.members[parts[0]] != nil && !target.embeds[parts[0]] && !target.members[parts[0]][parts[1]]:
		return parts[0] + " has no field or method " + parts[1]
	}
	return ""
}

func isIdentByte(c byte) bool {
	return c == '_' || c == ']' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// loadDocPackages parses every package under root (tests included, for
// the names they declare; testdata skipped) and returns them with the set
// of exported identifiers the code uses anywhere.
func loadDocPackages(t *testing.T, root string) ([]*docPackage, map[string]bool) {
	t.Helper()
	known := map[string]bool{}
	var pkgs []*docPackage
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
			return filepath.SkipDir
		}
		fset := token.NewFileSet()
		parsed, err := parser.ParseDir(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for name, ap := range parsed {
			p := &docPackage{dir: path, name: strings.TrimSuffix(name, "_test"), decls: map[string]bool{}, members: map[string]map[string]bool{}, embeds: map[string]bool{}}
			for fname, f := range ap.Files {
				ast.Inspect(f, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok && id.IsExported() {
						known[id.Name] = true
						// BenchmarkFanOut is "FanOut" in docs and reports.
						if b, ok := strings.CutPrefix(id.Name, "Benchmark"); ok {
							known[b] = true
						}
					}
					return true
				})
				if strings.HasSuffix(fname, "_test.go") {
					continue // their names count as known, their docs are not checked
				}
				p.collect(f)
			}
			pkgs = append(pkgs, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs, known
}

// collect records f's declarations and doc comments.
func (p *docPackage) collect(f *ast.File) {
	if f.Doc != nil {
		p.docs = append(p.docs, f.Doc)
	}
	member := func(typ, name string) {
		if p.members[typ] == nil {
			p.members[typ] = map[string]bool{}
		}
		p.members[typ][name] = true
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Doc != nil {
				p.docs = append(p.docs, d.Doc)
			}
			if d.Recv == nil {
				p.decls[d.Name.Name] = true
				continue
			}
			typ := d.Recv.List[0].Type
			for {
				switch x := typ.(type) {
				case *ast.StarExpr:
					typ = x.X
					continue
				case *ast.IndexExpr:
					typ = x.X
					continue
				case *ast.IndexListExpr:
					typ = x.X
					continue
				}
				break
			}
			if id, ok := typ.(*ast.Ident); ok {
				member(id.Name, d.Name.Name)
			}
		case *ast.GenDecl:
			if d.Doc != nil {
				p.docs = append(p.docs, d.Doc)
			}
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					p.decls[s.Name.Name] = true
					if s.Doc != nil {
						p.docs = append(p.docs, s.Doc)
					}
					if p.members[s.Name.Name] == nil {
						p.members[s.Name.Name] = map[string]bool{}
					}
					var fields *ast.FieldList
					switch tt := s.Type.(type) {
					case *ast.StructType:
						fields = tt.Fields
					case *ast.InterfaceType:
						fields = tt.Methods
					default:
						p.embeds[s.Name.Name] = true // a defined type of another: its methods come from elsewhere
					}
					if fields == nil {
						continue
					}
					for _, fl := range fields.List {
						if fl.Doc != nil {
							p.docs = append(p.docs, fl.Doc)
						}
						if len(fl.Names) == 0 {
							p.embeds[s.Name.Name] = true
						}
						for _, n := range fl.Names {
							member(s.Name.Name, n.Name)
						}
					}
				case *ast.ValueSpec:
					if s.Doc != nil {
						p.docs = append(p.docs, s.Doc)
					}
					for _, n := range s.Names {
						p.decls[n.Name] = true
					}
				}
			}
		}
	}
}
