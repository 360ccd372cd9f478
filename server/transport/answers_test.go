package transport

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// roundRobin forwards each request to the next node in turn, as a load
// balancer without sticky sessions does, and counts the answers each took.
type roundRobin struct {
	nodes   []*httputil.ReverseProxy
	next    atomic.Int64
	mu      sync.Mutex
	answers map[int]int
}

func newRoundRobin(t testing.TB, user string, nodes ...*httptest.Server) *httptest.Server {
	rr := &roundRobin{answers: map[int]int{}}
	for _, n := range nodes {
		u, _ := url.Parse(n.URL)
		p := httputil.NewSingleHostReverseProxy(u)
		p.FlushInterval = -1
		rr.nodes = append(rr.nodes, p)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(rr.next.Add(1)-1) % len(rr.nodes)
		// The request goes on whole, as Mattermost hands a plugin its request;
		// streaming the body through httputil while the node streams its
		// answer back let the Go transport drop the connection now and then.
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		// Mattermost sets the user after checking the token.
		r.Header.Set("Mattermost-User-Id", user)
		rr.nodes[i].ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func legacyClient(t testing.TB, base string, answer mcp.ElicitationResponseAction) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(base + MCPPath)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr,
		client.WithElicitationHandler(elicitFunc(func(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
			return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: answer, Content: map[string]any{"ok": true}}}, nil
		})),
		client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "legacy", Version: "1"}
	init.Params.Capabilities.Elicitation = &mcp.ElicitationCapability{Form: &struct{}{}}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c
}

type elicitFunc func(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error)

func (f elicitFunc) Elicit(ctx context.Context, r mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return f(ctx, r)
}

func TestAnElicitationAnswerThatReachesAnotherNodeIsDeliveredToTheCallThatAsked(t *testing.T) {
	kv, log := newMemKV(), &memLog{}
	active := map[string]bool{"alice": true}
	a, b := node(t, kv, log, active), node(t, kv, log, active)
	proxy := newRoundRobin(t, "alice", a, b)
	c := legacyClient(t, proxy.URL, mcp.ElicitationResponseActionDecline)

	// Several calls, so the question and its answer land on different
	// nodes in both orders.
	for i := range 4 {
		req := mcp.CallToolRequest{}
		req.Params.Name = "ask_direct"
		res, err := c.CallTool(context.Background(), req)
		if err != nil {
			log.mu.Lock()
			for _, l := range log.lines {
				t.Logf("log: %s %v", l.msg, l.kv)
			}
			log.mu.Unlock()
			t.Fatalf("call %d: %v", i, err)
		}
		got := res.Content[0].(mcp.TextContent).Text
		if got != "answer=decline" {
			t.Fatalf("call %d answered %q", i, got)
		}
	}
	relayed := 0
	kv.mu.Lock() // a call's collector may still be writing its mailbox
	for k := range kv.data {
		if strings.HasPrefix(k, mailboxPrefix) {
			relayed++
		}
	}
	kv.mu.Unlock()
	if relayed == 0 {
		t.Fatal("no answer went through a mailbox, so the test never crossed nodes")
	}
	// The node that delivered an answer clears it from the mailbox right
	// after handing it to the call, which may already have answered.
	mailbox := mailboxKey(kv.onlySession(t))
	for range 500 {
		raw, _ := (rawKV{kv}).Get(mailbox)
		if !strings.Contains(string(raw), "decline") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	raw, _ := (rawKV{kv}).Get(mailbox)
	t.Fatalf("delivered answers stay in the mailbox: %s", raw)
}

// BenchmarkAQuestionAnsweredThroughARoundRobinOfTwoNodes measures one tool
// call that asks the client (protocol 2025-11-25): alternate calls have
// their answer arrive on the other node and wait for the mailbox poll.
func BenchmarkAQuestionAnsweredThroughARoundRobinOfTwoNodes(b *testing.B) {
	kv, log := newMemKV(), &memLog{}
	active := map[string]bool{"alice": true}
	proxy := newRoundRobin(b, "alice", node(b, kv, log, active), node(b, kv, log, active))
	c := legacyClient(b, proxy.URL, mcp.ElicitationResponseActionAccept)
	req := mcp.CallToolRequest{}
	req.Params.Name = "ask_direct"
	b.ResetTimer()
	for range b.N {
		if _, err := c.CallTool(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// askDirect asks on the call's stream after taking the session's question
// slot, as the posting tools do for clients before 2026-07-28.
func askDirect(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := HoldQuestionSlot(ctx); err != nil {
		return nil, err
	}
	res, err := server.ServerFromContext(ctx).RequestElicitation(ctx, mcp.ElicitationRequest{
		Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)},
		Params: mcp.ElicitationParams{Message: "Post it?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}, "required": []string{"ok"}}},
	})
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText("answer=" + string(res.Action)), nil
}

func TestQuestionsAskedAtOnceInOneSessionAreAllAnsweredOnAnyNode(t *testing.T) {
	kv, log := newMemKV(), &memLog{}
	active := map[string]bool{"alice": true}
	a, b := node(t, kv, log, active), node(t, kv, log, active)
	// Initialized on a, then every question asked on b, which holds no
	// session in memory: each call there has a session of its own.
	afterInit := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.Header.Set("Mattermost-User-Id", "alice")
		target := b
		if strings.Contains(string(body), `"initialize"`) {
			target = a
		}
		u, _ := url.Parse(target.URL)
		p := httputil.NewSingleHostReverseProxy(u)
		p.FlushInterval = -1
		p.ServeHTTP(w, r)
	}))
	t.Cleanup(afterInit.Close)
	for _, target := range []struct {
		name string
		url  string
	}{{"the node that initialized", newRoundRobin(t, "alice", a).URL}, {"another node", afterInit.URL}, {"two nodes", newRoundRobin(t, "alice", a, b).URL}} {
		t.Run(target.name, func(t *testing.T) {
			base := target.url
			c := legacyClient(t, base, mcp.ElicitationResponseActionAccept)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var wg sync.WaitGroup
			errs := make(chan error, 3)
			for range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					req := mcp.CallToolRequest{}
					req.Params.Name = "ask_direct"
					res, err := c.CallTool(ctx, req)
					if err == nil && res.Content[0].(mcp.TextContent).Text != "answer=accept" {
						err = fmt.Errorf("answered %v", res.Content)
					}
					errs <- err
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatalf("a question asked beside another: %v", err)
				}
			}
		})
	}
}

func TestEveryNodeNumbersItsRequestsToClientsFromItsOwnRandomStart(t *testing.T) {
	counter := func(h *server.StreamableHTTPServer) int64 {
		return reflect.ValueOf(h).Elem().FieldByName("requestIDCounter").FieldByName("v").Int()
	}
	a := server.NewStreamableHTTPServer(server.NewMCPServer("a", "1"))
	b := server.NewStreamableHTTPServer(server.NewMCPServer("b", "1"))
	sa, oka := seedRequestIDs(a)
	sb, okb := seedRequestIDs(b)
	if !oka || !okb {
		t.Fatal("mcp-go's request counter moved: two nodes would number their questions alike again")
	}
	ca, cb := counter(a), counter(b)
	if ca != sa || cb != sb || ca == cb || ca <= 0 || cb <= 0 || ca+requestIDSpan >= 1<<52 || cb+requestIDSpan >= 1<<52 {
		t.Fatalf("the nodes start at %d and %d", ca, cb)
	}
}
