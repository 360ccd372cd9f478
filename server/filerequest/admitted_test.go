package filerequest

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/admission"
)

const notInTeams = "Your Mattermost admin has not enabled MCP for you (only members of chosen teams may connect an AI client): ask your Mattermost admin to let you connect an AI client (System Console > Plugins > MCP Server > Who may connect)."

// nothingKept fails unless userID's workspace holds no file.
func (f *fixture) nothingKept(t *testing.T, userID string) {
	t.Helper()
	if files, err := f.ws.List(userID); err != nil || len(files) != 0 {
		t.Fatalf("the workspace holds %d files (%v), want none", len(files), err)
	}
}

func TestADeactivatedPersonsDropURLRefusesTheFileKeepsNothingAndTakesItOnceTheyAreActiveAgain(t *testing.T) {
	f := newFixture(t, roomy)
	req := f.ask(t, alice, Ask{Purpose: "notes"})
	f.verdict = func(string) (admission.Verdict, error) {
		return admission.Verdict{Reason: admission.ReasonDeactivated}, nil
	}
	code, o := f.bridged(t, http.MethodPut, DropURL("", req), "n.txt", 5, []byte("notes"), nil)
	if code != http.StatusForbidden || o.Message != deactivatedText {
		t.Fatalf("the drop URL of a deactivated account: %d %+v", code, o)
	}
	f.nothingKept(t, alice)
	if len(f.heard) != 1 || Reason(f.heard[0]) != admission.ReasonDeactivated {
		t.Fatalf("the refusal was told as %v, want one of reason %q", f.heard, admission.ReasonDeactivated)
	}
	if back, _ := f.store.Load(alice, req.ID); back.State != StateWaiting || back.File != nil {
		t.Fatalf("the request after the refusal: %+v", back)
	}
	f.verdict = func(string) (admission.Verdict, error) { return admission.Allowed, nil }
	if code, o := f.bridged(t, http.MethodPut, DropURL("", req), "n.txt", 5, []byte("notes"), nil); code != http.StatusCreated {
		t.Fatalf("the drop URL once the account is active again: %d %+v", code, o)
	}
}

func TestADropURLWhosePersonTheRuleNoLongerAdmitsRefusesTheFileWithTheRulesLine(t *testing.T) {
	f := newFixture(t, roomy)
	req := f.ask(t, alice, Ask{Purpose: "notes"})
	f.verdict = func(userID string) (admission.Verdict, error) {
		if userID != alice {
			t.Fatalf("asked about %s for alice's drop URL", userID)
		}
		return admission.Verdict{Reason: admission.ReasonNotInTeams, Message: notInTeams}, nil
	}
	code, o := f.bridged(t, http.MethodPut, DropURL("", req), "n.txt", 5, []byte("notes"), nil)
	if code != http.StatusForbidden || o.Message != notInTeams+" Nothing was stored." || strings.Contains(o.Message, "\n") {
		t.Fatalf("the drop URL of a person the rule refuses: %d %+v", code, o)
	}
	f.nothingKept(t, alice)
	if len(f.heard) != 1 || Reason(f.heard[0]) != admission.ReasonNotInTeams {
		t.Fatalf("the refusal was told as %v, want one of reason %q", f.heard, admission.ReasonNotInTeams)
	}
}

func TestADropURLAsksWhetherItsPersonMayUseMCPOnEveryRequestAndOnlyOnceItsKeyOpens(t *testing.T) {
	f := newFixture(t, roomy)
	req := f.ask(t, alice, Ask{Purpose: "notes"})
	wrong := DropPath + "/" + alice + "/" + req.ID + "/" + strings.Repeat("0", 64)
	if code, _ := f.bridged(t, http.MethodPut, wrong, "n.txt", 1, []byte("n"), nil); code != http.StatusNotFound || f.asked != 0 {
		t.Fatalf("a made-up key: %d, the account asked about %d times", code, f.asked)
	}
	for i := range 2 {
		f.bridged(t, http.MethodPut, DropURL("", req), "n.txt", 1, []byte("n"), nil)
		if f.asked != i+1 {
			t.Fatalf("after %d requests the account was asked about %d times", i+1, f.asked)
		}
	}
}

func TestALookupOfTheDropURLsPersonThatFailsAnswers503ToTryAgainAndKeepsNothing(t *testing.T) {
	f := newFixture(t, roomy)
	req := f.ask(t, alice, Ask{Purpose: "notes"})
	f.verdict = func(string) (admission.Verdict, error) {
		return admission.Verdict{}, errors.New("the plugin API is down")
	}
	code, o := f.bridged(t, http.MethodPut, DropURL("", req), "n.txt", 5, []byte("notes"), nil)
	if code != http.StatusServiceUnavailable || !strings.Contains(o.Message, "Send the file again shortly") {
		t.Fatalf("a failed lookup: %d %+v", code, o)
	}
	f.nothingKept(t, alice)
	if len(f.heard) != 0 {
		t.Fatalf("a failed lookup was told as a refusal: %v", f.heard)
	}
}

func TestThePageRefusesAFileFromAPersonTheRuleNoLongerAdmitsAndKeepsNothing(t *testing.T) {
	f := newFixture(t, roomy)
	req := f.ask(t, alice, Ask{Purpose: "notes"})
	f.verdict = func(string) (admission.Verdict, error) {
		return admission.Verdict{Reason: admission.ReasonNotInTeams, Message: notInTeams}, nil
	}
	page := f.onPage(alice)
	page["X-File-Size"] = "5"
	code, o := f.bridged(t, http.MethodPost, Path+"/"+req.ID, "notes.txt", 5, []byte("notes"), page)
	if code != http.StatusForbidden || o.Message != notInTeams+" Nothing was stored." {
		t.Fatalf("the page of a person the rule refuses: %d %+v", code, o)
	}
	f.nothingKept(t, alice)
	f.verdict = func(string) (admission.Verdict, error) { return admission.Allowed, nil }
	if code, o := f.bridged(t, http.MethodPost, Path+"/"+req.ID, "notes.txt", 5, []byte("notes"), page); code != http.StatusCreated {
		t.Fatalf("the page once the person is admitted again: %d %+v", code, o)
	}
}

func TestWithAskingForFilesTurnedOffTheDropURLAndThePageTakeNoFileKeepNothingAndRecordIt(t *testing.T) {
	f := newFixture(t, roomy)
	req := f.ask(t, alice, Ask{Purpose: "notes"})
	f.withheld = "request_file is not offered on this Mattermost"
	page := f.onPage(alice)
	page["X-File-Size"] = "5"
	if code, o := f.bridged(t, http.MethodPut, DropURL("", req), "n.txt", 5, []byte("notes"), nil); code != http.StatusForbidden || o.Message != withheldText {
		t.Fatalf("the drop URL with request_file withheld: %d %+v", code, o)
	}
	if code, o := f.bridged(t, http.MethodPost, Path+"/"+req.ID, "notes.txt", 5, []byte("notes"), page); code != http.StatusForbidden || o.Message != withheldText {
		t.Fatalf("the page with request_file withheld: %d %+v", code, o)
	}
	f.nothingKept(t, alice)
	if len(f.heard) != 2 || Reason(f.heard[0]) != "not_offered" {
		t.Fatalf("the refusals were told as %v, want two of reason not_offered", f.heard)
	}
	f.withheld = ""
	if code, o := f.bridged(t, http.MethodPut, DropURL("", req), "n.txt", 5, []byte("notes"), nil); code != http.StatusCreated {
		t.Fatalf("the drop URL once request_file is offered again: %d %+v", code, o)
	}
}
