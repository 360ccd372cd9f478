package main

import "testing"

func TestASymbolIsWeighedInItsPackageAndModule(t *testing.T) {
	cases := []struct{ sym, pkg, module string }{
		{"github.com/mark3labs/mcp-go/server.(*MCPServer).HandleMessage", "github.com/mark3labs/mcp-go/server", "github.com/mark3labs/mcp-go"},
		{"type:*github.com/mattermost/mattermost/server/public/model.Post", "github.com/mattermost/mattermost/server/public/model", "github.com/mattermost/mattermost"},
		{"google.golang.org/grpc/internal/transport.NewHTTP2Client", "google.golang.org/grpc/internal/transport", "google.golang.org/grpc"},
		{"golang.org/x/image/draw.init", "golang.org/x/image/draw", "golang.org/x/image"},
		{"vendor/golang.org/x/net/idna.idnaValues", "vendor/golang.org/x/net/idna", "golang.org/x/net"},
		{"net/http.(*Transport).dialConn", "net/http", "std: net"},
		{"runtime.memstats", "runtime", "std: runtime"},
		{"main.(*Plugin).OnActivate", "main", "main (the plugin)"},
		{"go:func.*", "(linker: func)", "(linker: func)"},
		{"gopkg.in/yaml%2ev3.(*parser).parse", "gopkg.in/yaml.v3", "gopkg.in/yaml.v3"},
		{"go:itab.*gopkg.in/natefinch/lumberjack%2ev2.Logger,io.WriteCloser", "gopkg.in/natefinch/lumberjack.v2", "gopkg.in/natefinch/lumberjack.v2"},
		{"crypto/internal/entropy/v1%2e0%2e0.SHA384", "crypto/internal/entropy/v1.0.0", "std: crypto"},
	}
	for _, c := range cases {
		pkg := packageOf(c.sym)
		if pkg != c.pkg || moduleOf(pkg) != c.module {
			t.Errorf("%s: package %q module %q, want %q %q", c.sym, pkg, moduleOf(pkg), c.pkg, c.module)
		}
	}
}

func TestTheWeightsAddUpToTheSymbolsSizes(t *testing.T) {
	byModule, byPackage, total := weigh([]symbol{
		{"net/http.(*Transport).dialConn", 120}, {"net/http.readRequest", 80}, {"github.com/mark3labs/mcp-go/server.x", 50}})
	if total != 250 || byPackage["net/http"] != 200 || byModule["github.com/mark3labs/mcp-go"] != 50 || byModule["std: net"] != 200 {
		t.Fatalf("total %d, packages %v, modules %v", total, byPackage, byModule)
	}
}
