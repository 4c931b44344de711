// Package shape holds the tests of the module's shape as a reader meets
// it: how long its functions are and how many names its library exports.
// They read the source, not the binary, and run in well under a second.
package shape

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the module's root, from this package's directory.
const root = "../.."

// maxLines is the most lines a function may take, its signature and
// closing brace included.
const maxLines = 80

// longAllowed are the functions still over maxLines, by file and name,
// with their length: each is to be split, and leaves this list when it is.
var longAllowed = map[string]int{
	"sim/builtin.go builtinSecond": 93, // an engine's hot path, its policy step inlined: split with its benchmark
}

// maxExported is the most top-level names the library may export: its
// packages outside internal and cmd, test files aside. It only comes down.
const maxExported = 310

// sources calls fn with every non-test Go file of the module outside
// testdata and hidden directories, by its path from the root.
func sources(t *testing.T, fn func(path string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && p != root && (name == "testdata" || strings.HasPrefix(name, ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		fn(filepath.ToSlash(rel), fset, f)
		return nil
	})
	require.NoError(t, err)
}

// TestNoLongFunctions holds every function to maxLines, but those of
// longAllowed, each to its length there; one split below maxLines must
// leave the list.
func TestNoLongFunctions(t *testing.T) {
	seen := map[string]bool{}
	sources(t, func(path string, fset *token.FileSet, f *ast.File) {
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			lines := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			key := path + " " + fd.Name.Name
			if allowed, ok := longAllowed[key]; ok {
				seen[key] = true
				assert.LessOrEqual(t, lines, allowed, "%s grew: split it", key)
				assert.Greater(t, lines, maxLines, "%s is %d lines now: take it off longAllowed", key, lines)
				continue
			}
			assert.LessOrEqual(t, lines, maxLines, "%s is %d lines: split it", key, lines)
		}
	})
	for key := range longAllowed {
		assert.True(t, seen[key], "%s, in longAllowed, is gone: take it off the list", key)
	}
}

// TestExportedNames counts the library's exported top-level names (funcs,
// types, vars and consts, not methods) and holds them to maxExported.
func TestExportedNames(t *testing.T) {
	n := 0
	sources(t, func(path string, _ *token.FileSet, f *ast.File) {
		if f.Name.Name == "main" || strings.Contains("/"+path, "/internal/") || strings.HasPrefix(path, "cmd/") {
			return
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					n++
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							n++
						}
					case *ast.ValueSpec:
						for _, name := range s.Names {
							if name.IsExported() {
								n++
							}
						}
					}
				}
			}
		}
	})
	t.Logf("%d exported top-level names", n)
	assert.LessOrEqual(t, n, maxExported, "the library exports %d names: export only what a user of go test or the CLI needs", n)
}
