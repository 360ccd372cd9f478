package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// The widths a person reads the confirmation at: a phone and a laptop.
const (
	phoneWidth  = 390
	laptopWidth = 1280
)

// lookDir is where the screenshots of the confirmation go, to be looked at
// by a person (LOOK_DIR, else <tmp>/look).
func lookDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("LOOK_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "look")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// atWidth lays the tab out at a width; a phone width is a touch screen whose
// scrollbars take no room, as on a phone.
func atWidth(t *testing.T, tab context.Context, width, height int64) {
	t.Helper()
	step(t, tab, chromedp.EmulateViewport(width, height, func(p *emulation.SetDeviceMetricsOverrideParams, touch *emulation.SetTouchEmulationEnabledParams) {
		p.Mobile, touch.Enabled = width < 600, width < 600
	}))
}

// fitsWidth fails the test when the page scrolls sideways at its width.
func fitsWidth(t *testing.T, tab context.Context, width int64, what string) {
	t.Helper()
	if got := evalJS[int64](t, tab, `document.documentElement.scrollWidth`); got > width {
		t.Errorf("%s scrolls sideways at %dpx: %dpx wide", what, width, got)
	}
}

// shoot saves the whole page (or the whole open dialog) at its width as
// dir/name-<width>.png.
func shoot(t *testing.T, tab context.Context, width int64, name string) {
	t.Helper()
	h := evalJS[int64](t, tab, `(() => { const d = document.querySelector("[role=dialog]");
		return Math.max(document.documentElement.scrollHeight, d ? d.scrollHeight + 64 : 0); })()`)
	atWidth(t, tab, width, h)
	png, err := run(tab, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	file := filepath.Join(lookDir(t), fmt.Sprintf("%s-%d.png", name, width))
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", file)
	atWidth(t, tab, width, 900)
}

// inTimeZone sets a person's Mattermost time zone for the test.
func inTimeZone(t *testing.T, u harness.User, zone string) {
	t.Helper()
	c := mm.Client(u)
	me, _, err := c.GetUser(context.Background(), u.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	before := me.Timezone
	set := func(tz model.StringMap) error {
		_, _, err := c.PatchUser(context.Background(), u.ID, &model.UserPatch{Timezone: tz})
		return err
	}
	if err := set(model.StringMap{"useAutomaticTimezone": "false", "manualTimezone": zone, "automaticTimezone": ""}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = set(before) })
}

func TestTheConfirmationReadsWellOnAPhoneAndALaptop(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice, bob := mm.Users[0], mm.Users[1]
	inTimeZone(t, alice, "Asia/Tokyo")
	name := uniq(t, "harbour-")
	ch := createChannel(t, alice, name, "Harbour ops", model.ChannelTypeOpen)
	if _, _, err := mm.Client(alice).AddChannelMember(context.Background(), ch.Id, bob.ID); err != nil {
		t.Fatal(err)
	}
	_, photos := postFiles(t, alice, townSquare(t).Id, "the crane photo", map[string][]byte{"crane.jpg": sidewaysJPEG(t, 480, 320)})
	csv := "date,crane,status\n2025-01-02,3,down\n2025-01-02,4,down\n2025-01-03,1,up\n"
	done := postAsync(t, "create_post", map[string]any{"channel": ch.Id,
		"message": fmt.Sprintf("**Harbour report** for @%s and @%s:\n\n- opens at dawn\n- cranes 3 and 4 are down\n\n> tides are high this week\n\ncc @%s",
			bob.Username, mm.Admin.Username, bob.Username+"b"),
		"files": []map[string]any{{"name": "cranes.csv", "content": csv}, {"file_id": photos[0].Id}}})
	t.Cleanup(func() { <-done })
	id := waitPending(t, alice, name)
	place := "Harbour ops, " + mm.Team.DisplayName

	// The page, as the person opens it from the link.
	tab := chromeAs(t, alice)
	for _, width := range []int64{laptopWidth, phoneWidth} {
		atWidth(t, tab, width, 900)
		step(t, tab, chromedp.Navigate(pageOf(id)), chromedp.WaitVisible(chromedp.ID("accept")))
		pollJS[bool](t, tab, "the thumbnail loads", `(() => { const i = document.querySelector("img.thumbnail"); return !!i && i.complete && i.naturalWidth > 0; })()`)
		fitsWidth(t, tab, width, "the pending page")
		if h1 := evalJS[string](t, tab, `document.querySelector("h1").textContent`); h1 != "Post in "+place {
			t.Errorf("the heading reads %q", h1)
		}
		if h1 := evalJS[string](t, tab, `document.querySelector("h1").textContent`); strings.Contains(h1, ch.Id) || strings.Contains(h1, "**") {
			t.Errorf("the heading shows an id or markdown: %q", h1)
		}
		// The heading is one line at a laptop's width, not five.
		if lines := evalJS[float64](t, tab, `(() => { const h = document.querySelector("h1"); return h.getBoundingClientRect().height / parseFloat(getComputedStyle(h).lineHeight); })()`); width == laptopWidth && lines > 1.5 {
			t.Errorf("the heading takes %.1f lines at %dpx", lines, width)
		}
		notes := evalJS[string](t, tab, `document.querySelector("#notes").innerText`)
		for _, want := range []string{"@" + bob.Username + " is notified by the mention.",
			"@" + mm.Admin.Username + " is not in " + place + ", so Mattermost does not notify them.",
			"matches nobody, so it notifies nobody. Closest: @" + bob.Username} {
			if !strings.Contains(notes, want) {
				t.Errorf("who is notified does not say %q: %s", want, notes)
			}
		}
		origins := evalJS[string](t, tab, `Array.from(document.querySelectorAll(".file-origin")).map(e => e.textContent).join(" | ")`)
		if origins != "Written by the AI | A copy of the attachment crane.jpg" {
			t.Errorf("origins read %q", origins)
		}
		if expiry := evalJS[string](t, tab, `document.querySelector("time").textContent`); !strings.HasSuffix(expiry, "(Asia/Tokyo)") {
			t.Errorf("the expiry %q is not in the person's time zone", expiry)
		}
		// The box around the thumbnail fits it.
		if slack := evalJS[float64](t, tab, `(() => { const i = document.querySelector("img.thumbnail"); return i.parentElement.getBoundingClientRect().width - i.getBoundingClientRect().width; })()`); slack > 12 {
			t.Errorf("the thumbnail's box is %.0fpx wider than the image", slack)
		}
		if caption := evalJS[string](t, tab, `document.querySelector("#message").closest("figure").querySelector("figcaption").textContent`); !strings.HasPrefix(caption, "Written by the AI") {
			t.Errorf("the message's box is labelled %q", caption)
		}
		shoot(t, tab, width, "page-pending")
	}

	// The webapp's modal, opened by the event, then accepted there.
	web := webappAs(t, alice)
	// Mattermost's own page sets the viewport to the device's width.
	evalJS[any](t, web, `document.head.insertAdjacentHTML("beforeend", '<meta name="viewport" content="width=device-width, initial-scale=1">'); true`)
	evalJS[any](t, web, fmt.Sprintf(`window.__host.ws['custom_mcp-server_pending_confirmation']({event: 'custom_mcp-server_pending_confirmation',
		data: {confirmations: [{id: %q, title: 'A write waits'}]}}); true`, id))
	pollJS[bool](t, web, "the modal shows the write", `(() => { const d = document.querySelector("[role=dialog]"); return !!d && d.textContent.includes("Who is notified") && !!d.querySelector("img") && d.querySelector("img").complete; })()`)
	for _, width := range []int64{laptopWidth, phoneWidth} {
		atWidth(t, web, width, 900)
		fitsWidth(t, web, width, "the modal")
		// The dialog is fixed, so it can overflow without the page scrolling.
		if edges := evalJS[string](t, web, `(() => { const r = document.querySelector("[role=dialog]").getBoundingClientRect(); return r.left >= 8 && r.right <= innerWidth - 8 ? "" : r.left + ".." + r.right; })()`); edges != "" {
			t.Errorf("the modal runs to the screen's edge at %dpx: %s", width, edges)
		}
		if h2 := evalJS[string](t, web, `document.querySelector("[role=dialog] h2").textContent`); h2 != "Post in "+place {
			t.Errorf("the modal's heading reads %q", h2)
		}
		dialog := evalJS[string](t, web, `document.querySelector("[role=dialog]").innerText`)
		for _, want := range []string{"@" + bob.Username + " is notified by the mention.", "Written by the AI", "(Asia/Tokyo)"} {
			if !strings.Contains(dialog, want) {
				t.Errorf("the modal does not show %q", want)
			}
		}
		shoot(t, web, width, "modal-pending")
	}
	clickButton(t, web, "[role=dialog]", "Accept")
	status := pollJS[string](t, web, "the modal says it was posted", `(() => { const s = document.querySelector("[role=dialog] [role=status]"); return s ? s.textContent : ""; })()`)
	if status != "Posted in "+place+". View the post" {
		t.Errorf("the modal's outcome reads %q", status)
	}
	for _, width := range []int64{laptopWidth, phoneWidth} {
		atWidth(t, web, width, 900)
		shoot(t, web, width, "modal-posted")
	}

	// The page after the answer says what happened and links to the post.
	for _, width := range []int64{laptopWidth, phoneWidth} {
		atWidth(t, tab, width, 900)
		step(t, tab, chromedp.Navigate(pageOf(id)), chromedp.WaitVisible(chromedp.ID("outcome")))
		fitsWidth(t, tab, width, "the answered page")
		if state := evalJS[string](t, tab, `document.querySelector("#outcome").dataset.state`); state != approval.StateDone {
			t.Fatalf("outcome %q", state)
		}
		if said := evalJS[string](t, tab, `document.querySelector("#outcome h1").textContent`); said != "Posted in "+place+"." {
			t.Errorf("the page says %q", said)
		}
		if href := evalJS[string](t, tab, `document.querySelector("#permalink").getAttribute("href")`); !strings.Contains(href, "/pl/") {
			t.Errorf("the page links to %q", href)
		}
		shoot(t, tab, width, "page-posted")
	}

	// A direct message, declined on the page at a phone's width.
	marker := uniq(t, "walk")
	dm := postAsync(t, "dm", map[string]any{"user": bob.Username, "message": "Harbour walk at noon? " + marker})
	t.Cleanup(func() { <-dm })
	dmID := waitPending(t, alice, marker)
	atWidth(t, tab, phoneWidth, 900)
	step(t, tab, chromedp.Navigate(pageOf(dmID)), chromedp.WaitVisible(chromedp.ID("decline")))
	fitsWidth(t, tab, phoneWidth, "the direct message's page")
	if h1 := evalJS[string](t, tab, `document.querySelector("h1").textContent`); h1 != "Direct message to @"+bob.Username {
		t.Errorf("the heading reads %q", h1)
	}
	if notes := evalJS[string](t, tab, `document.querySelector("#notes").innerText`); !strings.Contains(notes, "@"+bob.Username+" is notified: it is a direct message to them.") {
		t.Errorf("who is notified: %q", notes)
	}
	shoot(t, tab, phoneWidth, "page-dm-pending")
	if state := outcomeAfterClick(t, tab, "decline"); state != approval.StateDeclined {
		t.Fatalf("outcome %q", state)
	}
	if said := evalJS[string](t, tab, `document.querySelector("#outcome").innerText`); !strings.HasPrefix(said, "Declined: nothing was posted.") {
		t.Errorf("the page says %q", said)
	}
	shoot(t, tab, phoneWidth, "page-dm-declined")
}
