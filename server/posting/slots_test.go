package posting

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

func TestAFileThatCannotStartReadingBeforeTheCallMustAnswerIsRefusedAsBusy(t *testing.T) {
	data := "the file"
	slots := NewSlots(1)
	reg := NewRegistry(slots, map[string]Source{KindWorkspace: mutable{&data}})
	req := Request{Dest: Destination{ChannelID: "c"}, Files: []Entry{{WorkspaceFile: "r.txt"}}}

	slots <- struct{}{} // another post reads a file
	ctx := WaitForSlotsUntil(context.Background(), time.Now().Add(50*time.Millisecond))
	_, err := Prepare(ctx, &fakeMM{}, reg, req)
	if r, ok := refusal.As(err); !ok || !strings.Contains(r.Error(), ErrSlotsBusy.Error()) {
		t.Fatalf("every slot taken until the call must answer: %v", err)
	}

	<-slots // a free slot is taken even when the call's time is up
	ctx = WaitForSlotsUntil(context.Background(), time.Now().Add(-time.Second))
	if plan, err := Prepare(ctx, &fakeMM{}, reg, req); err != nil || len(plan.Files) != 1 {
		t.Fatalf("with a free slot: %+v %v", plan, err)
	}
}
