package resources

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

func viewSet(t *testing.T, script func() ([]byte, error)) *Set {
	t.Helper()
	s, err := New(testCatalogue(t), []Template{
		View(ThreadView, "thread_view", "Posts", "The posts view.", "read_thread", script),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTheThreadViewIsAnMCPAppPageWhoseCSPAllowsOnlyItsOwnScript(t *testing.T) {
	js := []byte(`console.log("view")`)
	s := viewSet(t, func() ([]byte, error) { return js, nil })
	out, err := s.Read(context.Background(), ThreadView, config.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	page, ok := out[0].(mcp.TextResourceContents)
	if !ok || page.MIMEType != "text/html;profile=mcp-app" || page.URI != ThreadView {
		t.Fatalf("contents %+v", out[0])
	}
	sum := sha256.Sum256(js)
	for _, want := range []string{"default-src 'none'", "script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'", "<script>" + string(js) + "</script>"} {
		if !strings.Contains(page.Text, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	csp := page.Meta["ui"].(map[string]any)["csp"].(map[string]any)
	if len(csp["connectDomains"].([]string)) != 0 || len(csp["resourceDomains"].([]string)) != 0 {
		t.Errorf("the view asks for domains: %v", csp)
	}
}

func TestAScriptThatWouldCloseItsElementIsEscapedAndStillHashed(t *testing.T) {
	page := Page("t", []byte(`a="</script><img src=x onerror=alert(1)>"`))
	if strings.Contains(page, "</script><img") {
		t.Fatal("the script closed its own element")
	}
	if strings.Count(page, "</script>") != 1 {
		t.Fatalf("the page has more than its one script: %s", page)
	}
}

func TestTheViewIsListedAsOneResourceAndNotAsATemplate(t *testing.T) {
	s := viewSet(t, func() ([]byte, error) { return nil, nil })
	listed, _, err := s.List(context.Background(), "", config.Defaults())
	if err != nil || len(listed) != 1 || listed[0].URI != ThreadView || listed[0].MIMEType != ViewMIMEType {
		t.Fatalf("listed %+v, %v", listed, err)
	}
	if got := s.Serve(config.Defaults, nil).Templates(); len(got) != 0 {
		t.Errorf("templates %v", got)
	}
	off := config.Defaults()
	off.Toolsets = config.AllToolsets &^ config.ToolsetChannels
	if listed, _, _ := s.List(context.Background(), "", off); len(listed) != 0 {
		t.Errorf("the view is listed with its tools turned off: %+v", listed)
	}
	if _, err := s.Read(context.Background(), ThreadView, off); !errors.Is(err, transport.ErrResourceNotFound) {
		t.Errorf("the view is read with its tools turned off: %v", err)
	}
}

func TestAViewMissingFromTheBundleSaysHowToGetIt(t *testing.T) {
	s := viewSet(t, func() ([]byte, error) { return nil, errors.New("no such file") })
	_, err := s.Read(context.Background(), ThreadView, config.Defaults())
	if err == nil || !strings.Contains(err.Error(), "make dist") {
		t.Fatalf("err %v", err)
	}
}
