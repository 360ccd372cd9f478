package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// pendingViewPage reads the pending view's page, checking create_post and
// get_pending name it.
func pendingViewPage(t *testing.T, c *client.Client) string {
	t.Helper()
	return viewPage(t, c, resources.PendingView, "create_post", "get_pending")
}

func TestThePendingViewShowsTheWaitingPostAndThenPostedOnceThePersonAcceptsInMattermost(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	c := aliceClient(t)
	page := pendingViewPage(t, c)
	marker := uniq(t, "pview")
	name := `<img src=x onerror=pwned=1>.txt`
	args := map[string]any{"channel": ch.Id, "message": marker + " we **ship** friday " + viewXSS,
		"files": []map[string]any{{"name": name, "content": strings.Repeat("n", 3000)}}}
	// The call waits a bounded time for the person, then answers pending.
	res := call(t, c, "create_post", args)
	if res.IsError || res.Meta == nil || res.Meta.AdditionalFields[tools.PreviewMetaKey] == nil {
		t.Fatalf("create_post did not answer a waiting write with its preview: %s %+v", text(res), res.Meta)
	}
	var id string
	// Dark first: the last view, light at laptop width, sees the accept.
	for _, look := range []struct {
		theme string
		width int64
	}{{"dark", phoneWidth}, {"dark", laptopWidth}, {"light", phoneWidth}, {"light", laptopWidth}} {
		theme, width := look.theme, look.width
		tab := hostView(t, page, res, args, theme, width, c)
		if state := pollJS[string](t, tab, "the view shows the waiting write", inView(`(d.querySelector(".state") || {}).textContent || ""`)); state != "Waiting for you in Mattermost" {
			t.Fatalf("%s %dpx: the view says %q", theme, width, state)
		}
		got := evalJS[map[string]any](t, tab, inView(`({
			where: (d.querySelector(".where") || {}).textContent,
			bold: (d.querySelector(".post strong") || {}).textContent,
			file: (d.querySelector(".files") || {}).textContent,
			until: (d.querySelector(".time") || {}).textContent,
			links: [...d.querySelectorAll("a")].map(a => a.href),
			action: (d.querySelector("a.open") || {}).textContent,
			onAttrs: [...d.querySelectorAll("*")].filter(e => [...e.attributes].some(a => a.name.startsWith("on"))).length,
			imgs: d.querySelectorAll("img").length,
			pwned: !!(window.pwned || f.contentWindow.pwned),
			wide: d.documentElement.scrollWidth,
		})`))
		links, _ := got["links"].([]any)
		if len(links) != 1 || !strings.HasPrefix(fmt.Sprint(links[0]), confirmBase()+"/") || got["action"] != "Open in Mattermost to answer" {
			t.Fatalf("%dpx: the view's links are %v, want only the confirmation page", width, got)
		}
		id = strings.TrimPrefix(fmt.Sprint(links[0]), confirmBase()+"/")
		if !strings.Contains(fmt.Sprint(got["where"]), "Town Square") || got["bold"] != "ship" || !strings.Contains(fmt.Sprint(got["file"]), name) ||
			!strings.Contains(fmt.Sprint(got["file"]), "2.9 KB") || !strings.Contains(fmt.Sprint(got["until"]), "Waits until") {
			t.Errorf("%dpx: the view shows %v; want Town Square, the bold word, the file by name and size, until when", width, got)
		}
		if got["onAttrs"].(float64) != 0 || got["imgs"].(float64) != 0 || got["pwned"] == true {
			t.Errorf("%dpx: something the message or file name holds became live: %v", width, got)
		}
		if got["wide"].(float64) > float64(width) {
			t.Errorf("%dpx: the view scrolls sideways: %v wide", width, got["wide"])
		}
		if got := evalJS[string](t, tab, inView(`d.documentElement.dataset.theme || ""`)); got != theme {
			t.Errorf("%s %dpx: the view took the theme %q", theme, width, got)
		}
		shoot(t, tab, width, "pending-view-"+theme)
		if theme == "light" && width == laptopWidth {
			answerOnPage(t, alice, id, "accept", marker)
			if state := pollJS[string](t, tab, "the view shows the outcome", inView(`(() => { const s = d.querySelector(".state"); return s && s.textContent !== "Waiting for you in Mattermost" && s.textContent !== "Accepted: being done now" ? s.textContent : ""; })()`)); state != "posted" {
				t.Fatalf("after alice accepted in Mattermost the view says %q, want posted", state)
			}
			if n := evalJS[float64](t, tab, inView(`d.querySelectorAll("a").length`)); n != 0 {
				t.Errorf("the answered view still offers %v links", n)
			}
			shoot(t, tab, width, "pending-view-posted")
		}
	}
	if n := postsWith(t, alice, ch.Id, marker); n != 1 {
		t.Fatalf("%d posts after the accept, want 1", n)
	}
}
