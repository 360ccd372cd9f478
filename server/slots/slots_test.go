package slots

import (
	"context"
	"testing"
	"time"
)

func TestAPersonHoldsNoMoreThanTheirShareWhileOthersStillGetSlots(t *testing.T) {
	s := New(3, 2)
	ctx := context.Background()
	for i := range 2 {
		if _, ok := s.Take(ctx, "alice", 0); !ok {
			t.Fatalf("alice's slot %d was refused with slots free", i+1)
		}
	}
	if _, ok := s.Take(ctx, "alice", 0); ok {
		t.Fatal("alice got a third slot past her share of 2")
	}
	if _, ok := s.Take(ctx, "bob", 0); !ok {
		t.Fatal("bob was refused while the node had a slot free")
	}
	if _, ok := s.Take(ctx, "carol", 0); ok {
		t.Fatal("carol got a slot past the node's 3")
	}
	if all, theirs, _ := s.InUse("alice"); all != 3 || theirs != 2 {
		t.Fatalf("in use %d, alice's %d; want 3 and 2", all, theirs)
	}
}

func TestAWaitingTakerGetsTheSlotGivenBack(t *testing.T) {
	s := New(1, 1)
	ctx := context.Background()
	release, ok := s.Take(ctx, "alice", 0)
	if !ok {
		t.Fatal("the first slot was refused")
	}
	got := make(chan bool)
	go func() {
		r, ok := s.Take(ctx, "bob", time.Minute)
		r()
		got <- ok
	}()
	for { // until bob waits
		if _, _, waiting := s.InUse("bob"); waiting == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	release()
	release() // a second release gives nothing back twice
	if !<-got {
		t.Fatal("bob, waiting, did not get the slot alice gave back")
	}
	if all, _, _ := s.InUse("bob"); all != 0 {
		t.Fatalf("%d slots in use after both gave theirs back, want 0", all)
	}
	if len(s.held) != 0 {
		t.Fatalf("%d people still listed as holding slots, want none", len(s.held))
	}
}

func TestATakerThatWaitsTooLongIsToldBusy(t *testing.T) {
	s := New(1, 1)
	ctx := context.Background()
	if _, ok := s.Take(ctx, "alice", 0); !ok {
		t.Fatal("the first slot was refused")
	}
	if _, ok := s.Take(ctx, "bob", time.Millisecond); ok {
		t.Fatal("bob got a slot none gave back")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, ok := s.Take(cancelled, "bob", time.Minute); ok {
		t.Fatal("a taker whose request ended got a slot")
	}
}
