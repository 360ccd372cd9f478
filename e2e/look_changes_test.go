package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// aChange is one kind of change beyond posting, asked in Mattermost: the
// call, the words its heading starts with and names, and a read-back that
// nothing changed.
type aChange struct {
	tool      string
	args      map[string]any
	heading   string // the heading starts with it
	names     string // and names it (unique to the test where it can be, so it finds the question)
	unchanged func() bool
	shows     string // the page says it, where set
}

func TestEveryKindOfChangeReadsWellOnThePageAndInTheModalAtBothWidthsAndADeclineChangesNothing(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice, bob := mm.Users[0], mm.Users[1]
	ctx := context.Background()
	m := uniq(t, "")
	carol, err := mm.CreateUser(uniq(t, "carol"))
	if err != nil {
		t.Fatal(err)
	}
	quay := createChannel(t, alice, "quay"+m, "Quay "+m, model.ChannelTypeOpen)
	for _, u := range []string{carol.ID, bob.ID} {
		if _, _, err := mm.Client(alice).AddChannelMember(ctx, quay.Id, u); err != nil {
			t.Fatal(err)
		}
	}
	mine, _ := postFiles(t, alice, quay.Id, "crane schedule for the week", map[string][]byte{"cranes.csv": []byte("crane,status\n3,down\n")})
	createPost(t, bob, quay.Id, "noted", mine.Id)
	pinned := createPost(t, alice, quay.Id, "tide table, pinned", "")
	if _, err := mm.Client(alice).PinPost(ctx, pinned.Id); err != nil {
		t.Fatal(err)
	}
	open := createChannel(t, mm.Admin, "open"+m, "Open house "+m, model.ChannelTypeOpen)
	den := createChannel(t, alice, "den"+m, "Den "+m, model.ChannelTypePrivate)
	postStays := func(id string) func() bool {
		return func() bool { _, _, err := mm.Client(alice).GetPost(ctx, id, ""); return err == nil }
	}
	isPinned := func(id string) bool {
		p, _, err := mm.Client(alice).GetPost(ctx, id, "")
		return err == nil && p.IsPinned
	}
	status := func() string {
		s, _, err := mm.Client(mm.Admin).GetUserStatus(ctx, alice.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		return s.Status
	}
	statusBefore := status()
	changes := []aChange{
		{"delete_post", map[string]any{"post_id": mine.Id}, "Delete your post in", "Quay " + m, postStays(mine.Id), "1 reply, by anyone, is deleted with it"},
		{"pin_post", map[string]any{"post_id": mine.Id}, "Pin ", "Quay " + m, func() bool { return !isPinned(mine.Id) }, ""},
		{"unpin_post", map[string]any{"post_id": pinned.Id}, "Unpin ", "Quay " + m, func() bool { return isPinned(pinned.Id) }, ""},
		{"join_channel", map[string]any{"channel": open.Id}, "Join the public channel", "Open house " + m, func() bool { return !isMember(t, open.Id, alice.ID) }, ""},
		{"leave_channel", map[string]any{"channel": den.Id}, "Leave the private channel", "Den " + m, func() bool { return isMember(t, den.Id, alice.ID) }, "cannot rejoin"},
		{"create_channel", map[string]any{"display_name": "Harbour " + m, "name": "harbour" + m, "members": []string{"@" + bob.Username}}, "Create the public channel", "Harbour " + m,
			func() bool {
				_, resp, err := mm.Client(mm.Admin).GetChannelByName(ctx, "harbour"+m, mm.Team.Id, "")
				return err != nil && resp.StatusCode == 404
			}, "@" + bob.Username + " is notified"},
		{"add_channel_members", map[string]any{"channel": den.Id, "users": []string{"@" + bob.Username}}, "Add @" + bob.Username + " to", "Den " + m,
			func() bool { return !isMember(t, den.Id, bob.ID) }, "@" + bob.Username + " is notified"},
		{"set_status", map[string]any{"status": "dnd", "custom_text": "At the harbour " + m}, "Set your status to", "Do not disturb, with a custom status", // the heading leaves the model's text out
			func() bool { return status() == statusBefore }, "At the harbour " + m},
	}

	tab := chromeAs(t, alice)
	web := webappAs(t, alice)
	evalJS[any](t, web, `document.head.insertAdjacentHTML("beforeend", '<meta name="viewport" content="width=device-width, initial-scale=1">'); true`)
	for _, c := range changes {
		done := postAsync(t, c.tool, c.args)
		id := waitPending(t, alice, c.names)

		// The page, as the person opens it from the link.
		var heading string
		for _, width := range []int64{laptopWidth, phoneWidth} {
			atWidth(t, tab, width, 900)
			step(t, tab, chromedp.Navigate(pageOf(id)), chromedp.WaitVisible(chromedp.ID("decline")))
			fitsWidth(t, tab, width, c.tool+"'s page")
			heading = evalJS[string](t, tab, `document.querySelector("h1").textContent`)
			if !strings.HasPrefix(heading, c.heading) || !strings.Contains(heading, c.names) {
				t.Errorf("%s: the heading reads %q, want it to start %q and name %q", c.tool, heading, c.heading, c.names)
			}
			if strings.Contains(heading, "**") || strings.Contains(heading, harness.PluginID) {
				t.Errorf("%s: the heading shows markup or the plugin: %q", c.tool, heading)
			}
			// The button says what accepting does, not "post".
			if accept := evalJS[string](t, tab, `document.querySelector("#accept").textContent.trim()`); !strings.HasPrefix(accept, "Accept and ") || accept == "Accept and post" {
				t.Errorf("%s: the accept button reads %q", c.tool, accept)
			}
			if page := evalJS[string](t, tab, `document.body.innerText`); !strings.Contains(page, c.shows) {
				t.Errorf("%s: the page does not say %q", c.tool, c.shows)
			}
			shoot(t, tab, width, "page-"+c.tool)
		}

		// The webapp's modal shows the same question; it is declined there.
		evalJS[any](t, web, fmt.Sprintf(`window.__host.ws['custom_mcp-server_pending_confirmation']({event: 'custom_mcp-server_pending_confirmation',
			data: {confirmations: [{id: %q, title: 'A change waits'}]}}); true`, id))
		pollJS[bool](t, web, c.tool+"'s modal shows the change", fmt.Sprintf(`(() => { const d = document.querySelector("[role=dialog]"); return !!d && d.querySelector("h2").textContent === %q && Array.from(d.querySelectorAll("button")).some(b => b.textContent.trim() === "Decline"); })()`, heading))
		for _, width := range []int64{laptopWidth, phoneWidth} {
			atWidth(t, web, width, 900)
			fitsWidth(t, web, width, c.tool+"'s modal")
			if edges := evalJS[string](t, web, `(() => { const r = document.querySelector("[role=dialog]").getBoundingClientRect(); return r.left >= 8 && r.right <= innerWidth - 8 ? "" : r.left + ".." + r.right; })()`); edges != "" {
				t.Errorf("%s: the modal runs to the screen's edge at %dpx: %s", c.tool, width, edges)
			}
			// Each button reads on one line, even on a phone.
			if wrapped := evalJS[string](t, web, `Array.from(document.querySelectorAll("[role=dialog] button")).filter(b => { const r = document.createRange(); r.selectNodeContents(b); return b.textContent.trim().length > 1 && r.getClientRects().length > 1; }).map(b => b.textContent).join(", ")`); wrapped != "" {
				t.Errorf("%s: the modal's buttons %q wrap at %dpx", c.tool, wrapped, width)
			}
			shoot(t, web, width, "modal-"+c.tool)
		}
		clickButton(t, web, "[role=dialog]", "Decline")
		said := pollJS[string](t, web, c.tool+"'s modal says it was declined", `(() => { const s = document.querySelector("[role=dialog] [role=status]"); return s ? s.textContent : ""; })()`)
		if !strings.HasPrefix(said, "Declined") {
			t.Errorf("%s: the modal's outcome reads %q", c.tool, said)
		}
		clickButton(t, web, "[role=dialog]", "Close")

		res, out := waitTool(t, done)
		if !res.IsError || out.State != approval.StateDeclined {
			t.Errorf("%s: the call answered %q: %s", c.tool, out.State, text(res))
		}
		// The page says so too, and nothing changed.
		step(t, tab, chromedp.Navigate(pageOf(id)), chromedp.WaitVisible(chromedp.ID("outcome")))
		if state := evalJS[string](t, tab, `document.querySelector("#outcome").dataset.state`); state != approval.StateDeclined {
			t.Errorf("%s: the page shows %q", c.tool, state)
		}
		if !c.unchanged() {
			t.Errorf("%s: a declined change changed Mattermost", c.tool)
		}
	}
}
