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

func viewSet(t *testing.T, files func() (ViewFiles, error)) *Set {
	t.Helper()
	s, err := New(testCatalogue(t), []Template{
		View(ThreadView, "thread_view", "Posts", "The posts view.", "read_thread", files),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTheThreadViewIsAnMCPAppPageWhoseCSPAllowsOnlyItsOwnScriptAndStyle(t *testing.T) {
	js, css := []byte(`console.log("view")`), []byte(`body{margin:0}`)
	s := viewSet(t, func() (ViewFiles, error) { return ViewFiles{Script: js, Style: css}, nil })
	out, err := s.Read(context.Background(), ThreadView, config.Defaults(), config.Choice{})
	if err != nil {
		t.Fatal(err)
	}
	page, ok := out[0].(mcp.TextResourceContents)
	if !ok || page.MIMEType != "text/html;profile=mcp-app" || page.URI != ThreadView {
		t.Fatalf("contents %+v", out[0])
	}
	jsSum, cssSum := sha256.Sum256(js), sha256.Sum256(css)
	for _, want := range []string{"default-src 'none'",
		"script-src 'sha256-" + base64.StdEncoding.EncodeToString(jsSum[:]) + "';",
		"style-src 'sha256-" + base64.StdEncoding.EncodeToString(cssSum[:]) + "';",
		"<script>" + string(js) + "</script>", "<style>" + string(css) + "</style>"} {
		if !strings.Contains(page.Text, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page.Text, "unsafe-inline") || strings.Count(page.Text, "<style") != 1 || strings.Count(page.Text, "<script") != 1 {
		t.Errorf("the page allows more than its one script and one style: %s", page.Text)
	}
	csp := page.Meta["ui"].(map[string]any)["csp"].(map[string]any)
	if len(csp["connectDomains"].([]string)) != 0 || len(csp["resourceDomains"].([]string)) != 0 {
		t.Errorf("the view asks for domains: %v", csp)
	}
}

func TestAScriptThatWouldCloseItsElementIsEscapedAndStillHashed(t *testing.T) {
	page := Page("t", []byte(`a="</script><img src=x onerror=alert(1)>"`), nil)
	if strings.Contains(page, "</script><img") {
		t.Fatal("the script closed its own element")
	}
	if strings.Count(page, "</script>") != 1 {
		t.Fatalf("the page has more than its one script: %s", page)
	}
	sum := sha256.Sum256([]byte(`a="<\/script><img src=x onerror=alert(1)>"`))
	if !strings.Contains(page, base64.StdEncoding.EncodeToString(sum[:])) {
		t.Errorf("the escaped script is not the one hashed: %s", page)
	}
}

func TestAStyleThatWouldCloseItsElementIsEscapedAndStillHashed(t *testing.T) {
	css := `a{content:"</style><script>alert(1)</script>"}`
	page := Page("t", nil, []byte(css))
	if strings.Contains(page, "</style><script>alert") || strings.Count(page, "</style>") != 1 {
		t.Fatalf("the style closed its own element: %s", page)
	}
	sum := sha256.Sum256([]byte(strings.ReplaceAll(css, "</style", `<\/style`)))
	if !strings.Contains(page, "style-src 'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'") {
		t.Errorf("the escaped style is not the one hashed: %s", page)
	}
}

func TestTheViewIsListedAsOneResourceAndNotAsATemplate(t *testing.T) {
	s := viewSet(t, func() (ViewFiles, error) { return ViewFiles{}, nil })
	listed, _, err := s.List(context.Background(), "", config.Defaults(), config.Choice{})
	if err != nil || len(listed) != 1 || listed[0].URI != ThreadView || listed[0].MIMEType != ViewMIMEType {
		t.Fatalf("listed %+v, %v", listed, err)
	}
	if got := s.Serve(config.Defaults, nil).Templates(context.Background()); len(got) != 0 {
		t.Errorf("templates %v", got)
	}
	off := config.Defaults()
	off.Toolsets = config.AllToolsets &^ config.ToolsetChannels
	if listed, _, _ := s.List(context.Background(), "", off, config.Choice{}); len(listed) != 0 {
		t.Errorf("the view is listed with its tools turned off: %+v", listed)
	}
	if _, err := s.Read(context.Background(), ThreadView, off, config.Choice{}); !errors.Is(err, transport.ErrResourceNotFound) {
		t.Errorf("the view is read with its tools turned off: %v", err)
	}
}

func TestAViewMissingFromTheBundleSaysHowToGetIt(t *testing.T) {
	s := viewSet(t, func() (ViewFiles, error) { return ViewFiles{}, errors.New("no such file") })
	_, err := s.Read(context.Background(), ThreadView, config.Defaults(), config.Choice{})
	if err == nil || !strings.Contains(err.Error(), "make dist") {
		t.Fatalf("err %v", err)
	}
}
