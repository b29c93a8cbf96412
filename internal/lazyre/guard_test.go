package lazyre_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoPackageLevelCompile keeps start-up cheap: a package-level
// regexp.MustCompile (or regexp.Compile) in skillpm's own code runs at
// every command's start. Use lazyre.New instead. Tests and vendored
// third-party code are not linked into skillpm or are checked upstream.
func TestNoPackageLevelCompile(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "third_party", ".git", "bench", "scripts":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			ast.Inspect(g, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncLit:
					return false // runs when called, not at init
				case *ast.CallExpr:
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
						if x, ok := sel.X.(*ast.Ident); ok && x.Name == "regexp" &&
							(sel.Sel.Name == "MustCompile" || sel.Sel.Name == "Compile") {
							found = append(found, fset.Position(n.Pos()).String())
						}
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range found {
		t.Errorf("%s: package-level regexp compile runs at every start; use lazyre.New", at)
	}
}
