package e2e

// Issue 20, completion: completion/complete, through the official MCP Go
// SDK, offers only what the caller may see: their own channels (never
// another person's private one), people by what the privacy settings show
// (a hidden full name completes nobody), the files of a channel as ids.

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
)

func completePrompt(t testing.TB, s *sdk.ClientSession, prompt, arg, value string, context map[string]string) sdk.CompletionResultDetails {
	t.Helper()
	return completeRef(t, s, &sdk.CompleteReference{Type: "ref/prompt", Name: prompt}, arg, value, context)
}

func completeTemplate(t testing.TB, s *sdk.ClientSession, uri, arg, value string, context map[string]string) sdk.CompletionResultDetails {
	t.Helper()
	return completeRef(t, s, &sdk.CompleteReference{Type: "ref/resource", URI: uri}, arg, value, context)
}

func completeRef(t testing.TB, s *sdk.ClientSession, ref *sdk.CompleteReference, arg, value string, ctx map[string]string) sdk.CompletionResultDetails {
	t.Helper()
	params := &sdk.CompleteParams{Ref: ref, Argument: sdk.CompleteParamsArgument{Name: arg, Value: value}}
	if ctx != nil {
		params.Context = &sdk.CompleteContext{Arguments: ctx}
	}
	res, err := s.Complete(context.Background(), params)
	if err != nil {
		t.Fatalf("complete %s %s=%q: %v", ref.Name+ref.URI, arg, value, err)
	}
	if len(res.Completion.Values) > 100 {
		t.Fatalf("%d values, the protocol's cap is 100", len(res.Completion.Values))
	}
	return res.Completion
}

func TestCompletionOffersAPrivateChannelToItsMemberAndNotToAnotherPerson(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	prefix := uniq(t, "hush-")
	private := createChannel(t, alice, prefix+"-plans", "Hush plans", model.ChannelTypePrivate)
	mine := completePrompt(t, officialSDK(t, alice), "summarize_channel", "channel", prefix, nil)
	if !slices.Equal(mine.Values, []string{private.Name}) {
		t.Fatalf("alice completes %q to %v, want [%s]", prefix, mine.Values, private.Name)
	}
	// REST agrees: bob cannot read it.
	if _, resp, err := mm.Client(bob).GetChannel(context.Background(), private.Id); err == nil || resp.StatusCode != 403 {
		t.Fatalf("REST lets bob read alice's private channel: %v", err)
	}
	s := officialSDK(t, bob)
	if got := completePrompt(t, s, "summarize_channel", "channel", prefix, nil); len(got.Values) != 0 {
		t.Errorf("bob completes %q to %v", prefix, got.Values)
	}
	if got := completeTemplate(t, s, "mattermost://channel/{team}/{channel}", "channel", "Hush", map[string]string{"team": mm.Team.Name}); slices.Contains(got.Values, private.Name) {
		t.Errorf("bob completes the template's channel to %v", got.Values)
	}
	if got := completeTemplate(t, s, "mattermost://channel/{team}/{channel}", "team", mm.Team.Name[:3], nil); !slices.Contains(got.Values, mm.Team.Name) {
		t.Errorf("bob's team %s does not complete: %v", mm.Team.Name, got.Values)
	}
}

func TestAFullNameHiddenByThePrivacySettingsCompletesNobodyWhileTheUsernameStillDoes(t *testing.T) {
	ann := namedUser(t, "ann")
	s := officialSDK(t, mm.Users[1])
	setBool(t, "ShowFullName", showFullName, true)
	if got := completePrompt(t, s, "summarize_channel", "channel", "@Secretname", nil); !slices.Contains(got.Values, "@"+ann.Username) {
		t.Fatalf("with full names shown, @Secretname completes to %v, want @%s among them", got.Values, ann.Username)
	}
	setBool(t, "ShowFullName", showFullName, false)
	if got := completePrompt(t, s, "summarize_channel", "channel", "@Secretname", nil); slices.Contains(got.Values, "@"+ann.Username) {
		t.Errorf("with full names hidden, @Secretname still completes to %v", got.Values)
	}
	// REST agrees: Mattermost's own search finds nobody by the hidden name.
	found, _, err := mm.Client(mm.Users[1]).SearchUsers(context.Background(), &model.UserSearch{Term: "Secretname", TeamId: mm.Team.Id})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range found {
		if u.Id == ann.ID {
			t.Errorf("REST found %s by the hidden name", ann.Username)
		}
	}
	if got := completePrompt(t, s, "summarize_channel", "channel", "@"+ann.Username[:6], nil); !slices.Contains(got.Values, "@"+ann.Username) {
		t.Errorf("the username still completes: %v", got.Values)
	}
}

func TestAFileIDCompletesByTheFilesNameInTheChannelTheOtherVariablesName(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	ch := createChannel(t, alice, uniq(t, "files-"), "Files room", model.ChannelTypePrivate)
	name := uniq(t, "Minutes-")
	_, files := postFiles(t, alice, ch.Id, "minutes", map[string][]byte{name + ".txt": []byte("minutes\n")})
	s := officialSDK(t, alice)
	inChannel := map[string]string{"team": mm.Team.Name, "channel": ch.Name}
	if got := completeTemplate(t, s, "mattermost://file/{file_id}", "file_id", "minutes-", inChannel); !slices.Equal(got.Values, []string{files[0].Id}) {
		t.Fatalf("file_id in %s, typed \"minutes-\": %v, want [%s]", ch.Name, got.Values, files[0].Id)
	}
	if got := completeTemplate(t, officialSDK(t, bob), "mattermost://file/{file_id}", "file_id", "minutes-", inChannel); len(got.Values) != 0 {
		t.Errorf("bob, who is not in %s, completes its file to %v", ch.Name, got.Values)
	}
}

// BenchmarkCompletingAChannelOfAPersonWith1000Channels is what one
// keystroke costs on the real server for a person who belongs to 1,000
// channels, once their channels are cached (the next keystrokes, within 30
// seconds); the first keystroke, which reads them, is logged. Run it with
// -bench; its setup makes the channels.
func BenchmarkCompletingAChannelOfAPersonWith1000Channels(b *testing.B) {
	u, err := mm.CreateUser(fmt.Sprintf("many%s", model.NewId()[:8]))
	if err != nil {
		b.Fatal(err)
	}
	makeChannels(b, u, 1000)
	s := officialSDK(b, u)
	started := time.Now()
	got := completePrompt(b, s, "summarize_channel", "channel", "many-", nil)
	b.Logf("first keystroke of a person with 1000 channels: %v", time.Since(started))
	if got.Total != 1000 || !got.HasMore || len(got.Values) != 100 {
		b.Fatalf("a person with 1000 channels: %d values, total %d, more %v", len(got.Values), got.Total, got.HasMore)
	}
	for b.Loop() {
		completePrompt(b, s, "summarize_channel", "channel", "many-05", nil)
	}
}

// makeChannels has u create n open channels of the team, eight at a time.
func makeChannels(b *testing.B, u harness.User, n int) {
	b.Helper()
	c := mm.Client(u)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	work := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range work {
				_, _, err := c.CreateChannel(context.Background(), &model.Channel{TeamId: mm.Team.Id, Type: model.ChannelTypeOpen,
					Name: fmt.Sprintf("many-%04d-%s", i, u.ID[:6]), DisplayName: fmt.Sprintf("Many %04d", i)})
				if err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}
