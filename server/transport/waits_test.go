package transport

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestAPersonHoldsAtMostTheirShareOfWaitsAndAnotherPersonIsServedMeanwhile(t *testing.T) {
	tr := &Transport{}
	alice := tr.withWaitShares(withCallerID(context.Background(), "alice"))
	var releases []func()
	for i := range MaxHeldWaits {
		release, _, ok := HoldWait(alice)
		if !ok {
			t.Fatalf("wait %d of %d was refused", i+1, MaxHeldWaits)
		}
		releases = append(releases, release)
	}
	if _, held, ok := HoldWait(alice); ok || held != MaxHeldWaits {
		t.Fatalf("wait %d was held (%v, %d held)", MaxHeldWaits+1, ok, held)
	}
	bob := tr.withWaitShares(withCallerID(context.Background(), "bob"))
	if release, _, ok := HoldWait(bob); !ok {
		t.Fatal("bob was refused while alice was at her share")
	} else {
		release()
	}
	releases[0]()
	releases[0]() // a second release gives back nothing more
	if release, _, ok := HoldWait(alice); !ok {
		t.Fatal("a wait given back was not free again")
	} else {
		release()
	}
	if _, _, ok := HoldWait(alice); !ok {
		// MaxHeldWaits-1 held: one more fits, and the double release did
		// not make room for two.
		t.Fatal("a free wait was refused")
	}
	if _, _, ok := HoldWait(alice); ok {
		t.Fatal("the double release made room for two")
	}
}

func TestACallPastItsPersonsShareSaysSoBeforeItsOwnAnswer(t *testing.T) {
	tr := &Transport{}
	ctx := tr.withWaitShares(withCallerID(context.Background(), "carol"))
	for range MaxHeldWaits {
		HoldWait(ctx)
	}
	handler := tr.noteUnheld(func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		release, _, ok := HoldWait(ctx)
		defer release()
		if ok {
			t.Error("the call was held past the share")
		}
		return mcp.NewToolResultText("Waiting for the person: call get_pending later."), nil
	})
	res, err := handler(ctx, mcp.CallToolRequest{})
	if err != nil || len(res.Content) != 2 {
		t.Fatalf("%+v %v", res, err)
	}
	first := res.Content[0].(mcp.TextContent).Text
	if !strings.Contains(first, "10 requests waiting") || !strings.Contains(first, "answered without waiting") {
		t.Errorf("the note is %q", first)
	}
	// A call within the share is answered as it is.
	fresh := tr.noteUnheld(func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("done"), nil
	})
	res, _ = fresh((&Transport{}).withWaitShares(withCallerID(context.Background(), "dave")), mcp.CallToolRequest{})
	if len(res.Content) != 1 {
		t.Errorf("a call within the share got a note: %+v", res.Content)
	}
}
