package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/audit/audittest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/completion"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filetransfer"
	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/paths"
	"github.com/mcp-server/mattermost-plugin-mcp/server/prompts"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// The paths that are not tool calls, walked against the tools they stand
// for (package paths) in every combination of the admin's settings and a
// connection's choice, as the tools' own walk does
// (tools.TestEveryConnectionsChoiceListsAndLetsCallOnlyWhatItLoadedWithinTheAdmins).

// countingFiles is a file transfer backend that only counts what reaches
// it: a refused request must reach nothing.
type countingFiles struct {
	mu                       sync.Mutex
	uploads, downloads, kept int
}

func (b *countingFiles) Upload(context.Context, filetransfer.UploadRequest) (filetransfer.Upload, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.uploads++
	return filetransfer.Upload{UserID: alice, Name: "a.txt", URL: "https://chat.example.com/u", ExpiresAt: time.Now().Add(time.Minute)}, nil
}

func (b *countingFiles) Download(context.Context, filetransfer.Ref) (filetransfer.Download, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.downloads++
	return filetransfer.Download{URL: "https://chat.example.com/d", ExpiresAt: time.Now().Add(time.Minute), Name: "a.txt", Size: 1}, nil
}

func (b *countingFiles) Store(context.Context, filetransfer.Inline) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.kept++
	return "a.txt", nil
}

func (b *countingFiles) Caller(ctx context.Context) string { return transport.CallerID(ctx) }
func (b *countingFiles) MaxFileBytes() int64               { return 1 << 20 }

func (b *countingFiles) reached() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.uploads + b.downloads + b.kept
}

// kvAdapter is the transport's KV over the test store, as JSON.
type kvAdapter struct{ s *kvtest.Store }

func (k kvAdapter) Get(key string, out any) error {
	b, err := k.s.Get(key)
	if err != nil || b == nil {
		return err
	}
	return json.Unmarshal(b, out)
}

func (k kvAdapter) SetWithExpiry(key string, value any, ttl time.Duration) error {
	b, err := json.Marshal(value)
	if err != nil {
		return err
	}
	return k.s.Set(key, b, ttl)
}

func (k kvAdapter) Delete(key string) error { return k.s.Delete(key) }

const alice = "alice000000000000000000000"

// pathsNode is a transport serving file transfer over the real catalogue,
// with the settings cfg points at, as plugin.go wires it.
func pathsNode(t *testing.T, cat *catalogue.Catalogue, cfg *config.Configuration, files filetransfer.Backend, rec audit.Recorder) string {
	t.Helper()
	kv := kvtest.New()
	tr := transport.New(transport.Options{
		PluginID: "plugin-under-test", Version: "test", Instructions: "test",
		SiteURL:    func() string { return "https://chat.example.com/" },
		UserActive: func(string) (bool, error) { return true, nil },
		KV:         kvAdapter{kv}, Answers: kv, Log: nopLog{}, Audit: rec,
		Files: fileTransfer(cat, files),
		NotOffered: func(ctx context.Context, name string) string {
			return cat.NotOfferedTo(name, *cfg, transport.ChoiceOf(ctx))
		},
		Choose:            cat.Choose,
		MaxCallsPerMinute: func() int { return 1 << 20 },
	})
	mux := http.NewServeMux()
	mux.HandleFunc(transport.MCPPath, tr.ServeMCP)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + transport.MCPPath
}

type nopLog struct{}

func (nopLog) Debug(string, ...any) {}
func (nopLog) Info(string, ...any)  {}
func (nopLog) Warn(string, ...any)  {}
func (nopLog) Error(string, ...any) {}

// filesRequest posts one stateless 2026-07-28 request of a client that
// declares file transfer, on a connection that chose query.
func filesRequest(t *testing.T, url, query, method, params string) string {
	t.Helper()
	_, body := filesRequestStatus(t, url, query, method, params)
	return body
}

// filesRequestStatus is filesRequest with the answer's HTTP status.
func filesRequestStatus(t *testing.T, url, query, method, params string) (int, string) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":%q,"params":{%s"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"walk","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"files":{"upload":true,"download":true,"transports":["https"]}}}}}`, method, params)
	req, _ := http.NewRequest(http.MethodPost, url+query, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mattermost-User-Id", alice)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// choiceQuery is the MCP URL's query that chooses ch.
func choiceQuery(ch config.Choice) string {
	if !ch.Chosen && !ch.ReadOnly {
		return ""
	}
	q := ch.Query()
	if q == "" {
		return ""
	}
	return "?" + q
}

func TestEveryPathThatIsNoToolCallPassesTheDecisionOfTheToolsItStandsForInEveryCombination(t *testing.T) {
	var cfg config.Configuration
	current := func() config.Configuration { return cfg }
	deps := tools.Deps{Config: current}
	cat, err := catalogue.New(tools.All(deps))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range paths.Named() {
		if _, ok := cat.Tool(name); !ok {
			t.Fatalf("package paths names %q, which is no tool of the catalogue", name)
		}
	}
	set, err := prompts.New(cat, current)
	if err != nil {
		t.Fatal(err)
	}
	res, err := resources.New(cat, tools.Resources(deps), nil)
	if err != nil {
		t.Fatal(err)
	}
	serving := res.Serve(current, nil)
	complete := &completion.Provider{Prompts: set.Completions(), PromptOffered: set.OfferedTo, TemplateOffered: serving.TemplateOffered}
	files, rec := &countingFiles{}, &audittest.Trail{}
	url := pathsNode(t, cat, &cfg, files, rec)

	offeredTo := func(ctx context.Context, names ...string) bool {
		for _, n := range names {
			tl, ok := cat.Tool(n)
			if !ok || !catalogue.OfferedTo(tl, cfg, transport.ChoiceOf(ctx)) {
				return false
			}
		}
		return true
	}
	// What a file transfer request is, what it stands for, and what its
	// answer holds when it passes.
	transfers := []struct {
		method, params string
		standsFor      []string
		passed         string
	}{
		{"files/authorizeUpload", `"name":"a.txt","size":1,`, paths.Upload, `"upload":{`},
		{"files/authorizeDownload", `"uri":"mcp-file://mattermost/` + alice + `/workspace/a.txt",`, paths.Workspace, `"download":{`},
		{"files/authorizeDownload", `"uri":"mcp-file://mattermost/` + alice + `/attachment/` + strings.Repeat("f", 26) + `",`, paths.Attachment, `"download":{`},
		{"files/prepareUpload", `"name":"a.txt",`, paths.Upload, `earlier draft of SEP-2631`},
		{"files/getDownload", `"uri":"mcp-file://mattermost/` + alice + `/workspace/a.txt",`, paths.Workspace, `earlier draft of SEP-2631`},
	}
	// The tools the admin may leave out here: every one some path stands for.
	var standing []string
	standing = append(standing, paths.Named()...)
	for _, tpl := range res.Templates() {
		standing = append(standing, tpl.Tool)
	}
	for _, p := range set.All() {
		standing = append(standing, p.Reads...)
	}
	slices.Sort(standing)
	standing = slices.Compact(standing)

	checked, refusedFiles, passedFiles := 0, 0, 0
	for mask := range config.Toolset(config.AllToolsets + 1) {
		for _, writes := range []bool{false, true} {
			for _, readOnly := range []bool{false, true} {
				cfg = config.Defaults()
				cfg.Toolsets, cfg.AllowWrites, cfg.Server = mask, writes, config.ScheduledPosts
				if mask%2 == 1 {
					cfg.ExcludedTools = standing[int(mask)%len(standing)]
				}
				chosen := config.Toolset((uint16(mask)*167 + 89) % uint16(config.AllToolsets+1))
				ch := config.Choice{Chosen: mask%5 != 0, Toolsets: chosen, Light: mask%3 == 0, ReadOnly: readOnly}
				if mask%7 == 0 {
					ch.Tools = []string{standing[int(mask)%len(standing)]}
				}
				if !ch.Chosen {
					ch = config.Choice{ReadOnly: readOnly}
				}
				ctx := transport.WithChoice(context.Background(), ch)
				where := fmt.Sprintf("admin toolsets %08b, writes %v, left out %q, connection %+v", mask, writes, cfg.ExcludedTools, ch)

				// Resources: read, listed and subscribed to by their tool.
				var wantTemplates []string
				for _, tpl := range res.Templates() {
					want := offeredTo(ctx, tpl.Tool)
					if got := res.Offered(tpl, cfg, ch); got != want {
						t.Fatalf("%s: the resource %s is offered: %v, but its tool %s: %v", where, tpl.URITemplate, got, tpl.Tool, want)
					}
					if got := serving.TemplateOffered(ctx, tpl.URITemplate); got != want {
						t.Fatalf("%s: completing %s is offered: %v, but its tool %s: %v", where, tpl.URITemplate, got, tpl.Tool, want)
					}
					if want && !tpl.Static() {
						wantTemplates = append(wantTemplates, tpl.URITemplate)
					}
					if !want && len(tpl.Vars()) > 0 {
						got, err := complete.CompleteResourceArgument(ctx, tpl.URITemplate, mcp.CompleteArgument{Name: tpl.Vars()[0], Value: "a"}, mcp.CompleteContext{})
						if err != nil || len(got.Values) != 0 {
							t.Fatalf("%s: completing %s, withheld, answered %v, %v", where, tpl.URITemplate, got, err)
						}
					}
				}
				if got := serving.Templates(ctx); !slices.Equal(got, wantTemplates) {
					t.Fatalf("%s: resources/templates/list lists %v, want %v", where, got, wantTemplates)
				}

				// Prompts: listed, got and completed by every tool they read.
				var listed []mcp.Prompt
				for _, p := range set.All() {
					listed = append(listed, p.MCP())
				}
				var wantPrompts, gotPrompts []string
				for _, p := range set.All() {
					want := offeredTo(ctx, p.Reads...)
					if want {
						wantPrompts = append(wantPrompts, p.Name)
					}
					if got := set.OfferedTo(ctx, p.Name); got != want {
						t.Fatalf("%s: the prompt %s is offered: %v, but its tools %v: %v", where, p.Name, got, p.Reads, want)
					}
					why := set.InvalidParams(ctx, "prompts/get", []byte(`{"name":"`+p.Name+`"}`))
					if refused := strings.Contains(why, "not offered"); refused == want {
						t.Fatalf("%s: prompts/get %s is refused: %v (%q), but its tools %v are offered: %v", where, p.Name, refused, why, p.Reads, want)
					}
					if !want {
						for _, a := range p.Arguments {
							got, err := complete.CompletePromptArgument(ctx, p.Name, mcp.CompleteArgument{Name: a.Name, Value: "a"}, mcp.CompleteContext{})
							if err != nil || len(got.Values) != 0 {
								t.Fatalf("%s: completing %s of the withheld prompt %s answered %v, %v", where, a.Name, p.Name, got, err)
							}
						}
					}
				}
				for _, p := range set.Filter()(ctx, listed) {
					gotPrompts = append(gotPrompts, p.Name)
				}
				if !slices.Equal(gotPrompts, wantPrompts) {
					t.Fatalf("%s: prompts/list lists %v, want %v", where, gotPrompts, wantPrompts)
				}

				// File transfer, over HTTP through the transport: refused
				// before anything is reached, and recorded, exactly when a
				// tool it stands for is withheld.
				for _, tr := range transfers {
					before := files.reached()
					got := filesRequest(t, url, choiceQuery(ch), tr.method, tr.params)
					events := rec.Take()
					if offeredTo(ctx, tr.standsFor...) {
						passedFiles++
						if !strings.Contains(got, tr.passed) || strings.Contains(got, "notOffered") {
							t.Fatalf("%s: %s, whose tools %v are offered, answered %s", where, tr.method, tr.standsFor, got)
						}
						continue
					}
					refusedFiles++
					if !strings.Contains(got, `"reason":"notOffered"`) || files.reached() != before {
						t.Fatalf("%s: %s, whose tools %v are withheld, answered %s and reached the files %d times", where, tr.method, tr.standsFor, got, files.reached()-before)
					}
					p, _ := paths.Of(tr.method)
					if len(events) != 1 || events[0].Kind != p.Audit || events[0].Outcome != audit.OutcomeRefused || events[0].Tool != tr.method || events[0].UserID != alice {
						t.Fatalf("%s: %s refused recorded %+v, want one %s refused", where, tr.method, events, p.Audit)
					}
				}
				checked++
			}
		}
	}
	if checked != 256*2*2 || refusedFiles == 0 || passedFiles == 0 {
		t.Fatalf("%d combinations checked, file transfers refused %d and passed %d: this test checks less than it says", checked, refusedFiles, passedFiles)
	}
}

func TestEveryMethodTheServerAnswersIsNamedWithWhatItStandsForAndNoOtherIsAnswered(t *testing.T) {
	var cfg config.Configuration = config.Defaults()
	cat, err := catalogue.New(tools.All(tools.Deps{Config: func() config.Configuration { return cfg }}))
	if err != nil {
		t.Fatal(err)
	}
	// Every method mcp-go or a concern of the transport answers.
	for _, m := range []mcp.MCPMethod{mcp.MethodInitialize, mcp.MethodPing, mcp.MethodServerDiscover, mcp.MethodSetLogLevel,
		mcp.MethodSubscriptionsListen, mcp.MethodToolsList, mcp.MethodToolsCall, mcp.MethodPromptsList, mcp.MethodPromptsGet,
		mcp.MethodResourcesTemplatesList, mcp.MethodResourcesList, mcp.MethodResourcesRead, mcp.MethodResourcesSubscribe,
		mcp.MethodResourcesUnsubscribe, mcp.MethodCompletionComplete, mcp.MethodTasksGet, mcp.MethodTasksList, mcp.MethodTasksResult,
		mcp.MethodTasksCancel, "tasks/update", filetransfer.MethodAuthorizeUpload, filetransfer.MethodAuthorizeDownload} {
		if _, ok := paths.Of(string(m)); !ok {
			t.Errorf("%s is answered but package paths does not say what it stands for", m)
		}
	}
	url := pathsNode(t, cat, &cfg, &countingFiles{}, &audittest.Trail{})
	// 2026-07-28 answers method-not-found 404, as mcp-go answers its own.
	for _, method := range []string{"files/listEverything", "sampling/createEverything"} {
		code, got := filesRequestStatus(t, url, "", method, "")
		if code != http.StatusNotFound || !strings.Contains(got, `"code":-32601`) || !strings.Contains(got, "is not a method of this server") {
			t.Fatalf("%s, which no path names, answered %d %s", method, code, got)
		}
	}
}
