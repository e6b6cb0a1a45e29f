package rewrite

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dstgo/dst/internal/engine"
)

// Hooks in standard packages (netsim.go's in net, ossim.go's in os).
//
// Where a standard package's own code must hand over to the tool (a
// simulated socket's reads, a file's writes inside a run), and the package
// cannot import ours (we import it), the overlay adds a file to it and
// inserts a first line into each function that must hand over. Each
// insertion goes on the line of the function's opening brace, so that
// every line of the package keeps its number in stacks and reports. Each
// is checked against the build's own files (the function is there, with
// the signature the hook was written for, and no name of the package's
// clashes with the hooks'): a package that differs (another Go release,
// another system) is left as it is, and a note says what that costs. The
// added file reaches our code through values our code hands it, found by
// an interface assertion on one of the package's exported types, so that
// our code builds and links without the overlay too.

// stdHooks are the hooks of one standard package.
type stdHooks struct {
	pkg   string    // its import path
	need  string    // a file its build must have: the system the hooks were written for
	field [2]string // a struct type to add a field to, and the field ("" for none)
	hooks []hook
	added string // the file the overlay adds (engine.OverlayFile)
	what  string // what a build without the hooks lacks, for the note
}

// hook is one function of a standard package that hands over to the
// tool: its receiver's type ("" for a function), its name, its signature
// as go/printer prints it (the prologue uses its names), and what goes
// first in its body.
type hook struct {
	recv, name, sig, prologue string
}

// files is what the overlay replaces and adds in h's package, by path,
// for the listing's build; none, and a note saying why, when the build's
// package is not as h says, or is not in the build.
func (h *stdHooks) files(listing []listed, modCache string) (map[string]string, string) {
	var pkg *listed
	for i := range listing {
		if p := &listing[i]; p.Standard && p.ImportPath == h.pkg {
			pkg = p
		}
	}
	if pkg == nil {
		return nil, ""
	}
	files, err := h.edit(pkg.Dir, pkg.GoFiles)
	if err == nil {
		err = notInModCache(modCache, pkg.Dir, listing) // a toolchain that GOTOOLCHAIN fetched
	}
	if err != nil {
		return nil, fmt.Sprintf("dstreplay: %s in this build: %v", h.what, err)
	}
	return files, ""
}

// edit edits the files of h's package in dir (the build's goFiles) as its
// hooks say, and adds its file.
func (h *stdHooks) edit(dir string, goFiles []string) (map[string]string, error) {
	if !slices.Contains(goFiles, h.need) {
		return nil, fmt.Errorf("package %s here is not the one for unix systems the tool knows", h.pkg)
	}
	type insertion struct {
		at   int
		text string
	}
	edits := map[string][]insertion{} // by file
	texts := map[string][]byte{}
	found := map[int]bool{}
	fset := token.NewFileSet()
	fielded := h.field[0] == ""
	for _, name := range goFiles {
		path := filepath.Join(dir, name)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		texts[path] = src
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && h.field[0] != "" && ts.Name.Name == h.field[0] {
						st, ok := ts.Type.(*ast.StructType)
						if !ok {
							return nil, fmt.Errorf("%s's %s is not a struct", h.pkg, h.field[0])
						}
						fielded = true
						edits[path] = append(edits[path], insertion{fset.Position(st.Fields.Opening).Offset + 1, h.field[1]})
					}
				}
				for _, name := range declaredNames(d) {
					if reserved(name) {
						return nil, fmt.Errorf("%s declares %s, a name the tool's hooks use", h.pkg, name)
					}
				}
			case *ast.FuncDecl:
				if n := d.Name.Name; reserved(n) {
					return nil, fmt.Errorf("%s declares %s, a name the tool's hooks use", h.pkg, n)
				}
				i := slices.IndexFunc(h.hooks, func(k hook) bool { return k.name == d.Name.Name && k.recv == recvName(d) })
				if i < 0 {
					continue
				}
				if d.Body == nil {
					return nil, fmt.Errorf("%s's %s has no body", h.pkg, h.hooks[i].sig)
				}
				if sig := signature(fset, d); sig != h.hooks[i].sig {
					return nil, fmt.Errorf("%s's %s is %q, not %q as the tool knows it", h.pkg, d.Name.Name, sig, h.hooks[i].sig)
				}
				found[i] = true
				edits[path] = append(edits[path], insertion{fset.Position(d.Body.Lbrace).Offset + 1, " " + h.hooks[i].prologue})
			}
		}
	}
	if !fielded {
		return nil, fmt.Errorf("%s has no %s", h.pkg, h.field[0])
	}
	for i, k := range h.hooks {
		if !found[i] {
			return nil, fmt.Errorf("%s has no %s", h.pkg, k.sig)
		}
	}
	out := map[string]string{filepath.Join(dir, engine.OverlayFile): h.added}
	for path, ins := range edits {
		slices.SortFunc(ins, func(a, b insertion) int { return a.at - b.at })
		src := texts[path]
		var b bytes.Buffer
		last := 0
		for _, in := range ins {
			b.Write(src[last:in.at])
			b.WriteString(in.text)
			last = in.at
		}
		b.Write(src[last:])
		out[path] = b.String()
	}
	return out, nil
}

// reserved reports whether a package's name is one the hooks may use.
func reserved(name string) bool {
	return strings.HasPrefix(name, "dst") || strings.HasPrefix(name, "errDst") || strings.HasPrefix(name, "Dstreplay")
}

// recvName is the name of d's receiver's type, without its star; "" for a
// function.
func recvName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) != 1 {
		return ""
	}
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// signature is d without its body, as go/printer prints it.
func signature(fset *token.FileSet, d *ast.FuncDecl) string {
	var b bytes.Buffer
	printer.Fprint(&b, fset, &ast.FuncDecl{Recv: d.Recv, Name: d.Name, Type: d.Type})
	return b.String()
}

// declaredNames are the names a declaration declares at the package's
// level.
func declaredNames(d *ast.GenDecl) []string {
	var names []string
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			names = append(names, s.Name.Name)
		case *ast.ValueSpec:
			for _, n := range s.Names {
				names = append(names, n.Name)
			}
		}
	}
	return names
}
