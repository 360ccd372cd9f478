// Command bodydecodes counts the places in the MCP transport that decode a
// request's body for themselves: JSON decoding of a parameter holding the
// body (a []byte or json.RawMessage named body or msg) inside a function
// of server/transport. Issue 47 asks that a request be read once, into
// the envelope (server/transport/envelope.go); this is the count to watch.
//
//	go run ./build/bodydecodes [dir]
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// bodyNames are the names the transport gives a request's bytes.
var bodyNames = map[string]bool{"body": true, "msg": true}

// decoders are the calls that decode JSON from bytes given as their first
// argument (json.NewDecoder takes a reader over them).
var decoders = map[string]bool{"json.Unmarshal": true, "json.Valid": true, "json.NewDecoder": true}

type site struct {
	pos  token.Position
	fn   string
	call string
}

func main() {
	dir := filepath.Join("server", "transport")
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	sites, err := count(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	funcs := map[string]bool{}
	for _, s := range sites {
		fmt.Printf("%s:%d\t%s\t%s\n", s.pos.Filename, s.pos.Line, s.fn, s.call)
		funcs[s.fn] = true
	}
	fmt.Printf("%d places in %d functions decode a request body\n", len(sites), len(funcs))
}

// count finds every decode of a body parameter in the non-test Go files
// of dir.
func count(dir string) ([]site, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var out []site
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			params := bodyParams(fn)
			if len(params) == 0 {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				name := callName(call.Fun)
				if decoders[name] && readsParam(call.Args[0], params) {
					out = append(out, site{pos: fset.Position(call.Pos()), fn: fn.Name.Name, call: name})
				}
				return true
			})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].pos.Filename != out[j].pos.Filename {
			return out[i].pos.Filename < out[j].pos.Filename
		}
		return out[i].pos.Line < out[j].pos.Line
	})
	return out, nil
}

// bodyParams are the function's parameters that hold a request's bytes.
func bodyParams(fn *ast.FuncDecl) map[string]bool {
	out := map[string]bool{}
	for _, field := range fn.Type.Params.List {
		typ := exprString(field.Type)
		if typ != "[]byte" && typ != "json.RawMessage" {
			continue
		}
		for _, n := range field.Names {
			if bodyNames[n.Name] {
				out[n.Name] = true
			}
		}
	}
	return out
}

// readsParam reports whether arg is one of params, or a reader over one.
func readsParam(arg ast.Expr, params map[string]bool) bool {
	switch a := arg.(type) {
	case *ast.Ident:
		return params[a.Name]
	case *ast.CallExpr:
		return callName(a.Fun) == "bytes.NewReader" && len(a.Args) == 1 && readsParam(a.Args[0], params)
	}
	return false
}

func callName(fun ast.Expr) string { return exprString(fun) }

func exprString(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return exprString(x.X) + "." + x.Sel.Name
	case *ast.ArrayType:
		return "[]" + exprString(x.Elt)
	}
	return ""
}
