package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The baseline is the REST calls alone. A REST-based MCP server is
// more than its REST calls: its clients speak MCP to it as they do to the
// plugin. restMCP is that server, as small as one can be, in this process
// (on the same cores, as the plugin is): the same five tools over mcp-go,
// each making the REST calls of restLoad with the client's own token and
// answering their bodies as text (read_file its first 200 lines). Beside
// it the plugin's figures compare like with like.

type tokenKey struct{}

// restMCP serves the tools on a loopback port, under the path the harness's
// MCP clients use; stop ends it.
func restMCP(site string, fx fixture) (url string, stop func(), err error) {
	api := strings.TrimRight(site, "/") + "/api/v4"
	s := server.NewMCPServer("rest-based MCP server", "1")
	tool := func(name string, answer func(ctx context.Context, token string) (string, error)) {
		s.AddTool(mcp.NewTool(name, mcp.WithDescription(name)), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			token, _ := ctx.Value(tokenKey{}).(string)
			text, err := answer(ctx, token)
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return mcp.NewToolResultText(text), nil
		})
	}
	type restCall struct{ method, path, body string }
	bodies := func(ctx context.Context, token string, calls ...restCall) (string, error) {
		var out []string
		for _, c := range calls {
			var body []byte
			if c.body != "" {
				body = []byte(c.body)
			}
			b, err := restBody(ctx, token, c.method, api+c.path, body)
			if err != nil {
				return "", err
			}
			out = append(out, string(b))
		}
		return strings.Join(out, "\n"), nil
	}
	search := `{"terms":"fastbench","is_or_search":false,"per_page":20}`
	tool("get_me", func(ctx context.Context, token string) (string, error) {
		return bodies(ctx, token, restCall{http.MethodGet, "/users/me", ""})
	})
	tool("list_channels", func(ctx context.Context, token string) (string, error) {
		return bodies(ctx, token, restCall{http.MethodGet, "/users/me/teams", ""},
			restCall{http.MethodGet, "/users/me/teams/" + fx.team + "/channels", ""})
	})
	tool("read_channel", func(ctx context.Context, token string) (string, error) {
		return bodies(ctx, token, restCall{http.MethodGet, "/channels/" + fx.channel + "/posts?per_page=30", ""},
			restCall{http.MethodPost, "/users/ids", `["` + fx.people[0].ID + `"]`})
	})
	tool("read_file", func(ctx context.Context, token string) (string, error) {
		info, err := bodies(ctx, token, restCall{http.MethodGet, "/files/" + fx.fileID + "/info", ""})
		if err != nil {
			return "", err
		}
		data, err := restBody(ctx, token, http.MethodGet, api+"/files/"+fx.fileID, nil)
		if err != nil {
			return "", err
		}
		lines := bytes.SplitN(data, []byte("\n"), 201)
		return info + "\n" + string(bytes.Join(lines[:min(200, len(lines))], []byte("\n"))), nil
	})
	tool("search_posts", func(ctx context.Context, token string) (string, error) {
		return bodies(ctx, token, restCall{http.MethodPost, "/teams/" + fx.team + "/posts/search", search})
	})
	h := server.NewStreamableHTTPServer(s, server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
		return context.WithValue(ctx, tokenKey{}, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}))
	mux := http.NewServeMux()
	mux.Handle("/plugins/mcp-server/mcp", h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: mux}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Println("fastbench: the REST-based MCP server stopped:", err)
		}
	}()
	return "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}
