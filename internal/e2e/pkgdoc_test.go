//go:build linux

package e2e

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackageDocs fails for any package of the module without a doc comment.
func TestPackageDocs(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
			if d != nil && d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return err
		}
		pkgs, err := parser.ParseDir(token.NewFileSet(), path, nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		for name, p := range pkgs {
			if strings.HasSuffix(name, "_test") {
				continue
			}
			documented := false
			for _, f := range p.Files {
				if f.Doc != nil && len(f.Doc.List) > 0 {
					documented = true
				}
			}
			if !documented {
				t.Errorf("package %s (%s) has no doc comment", name, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNoLongFunctions fails for a function of the module's code (tests
// aside) longer than 100 lines, its signature and closing brace counted
// (issue 46 point 6): past that, split it by what its parts do.
func TestNoLongFunctions(t *testing.T) {
	root := filepath.Join("..", "..")
	fs := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fs, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil {
				if n := fs.Position(fd.End()).Line - fs.Position(fd.Pos()).Line + 1; n > 100 {
					t.Errorf("%s: func %s is %d lines, over 100: split it by what its parts do", path, fd.Name.Name, n)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
