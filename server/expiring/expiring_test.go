package expiring

import (
	"testing"
	"time"
)

func TestAnEntryIsTrustedForItsTimeAndNoLonger(t *testing.T) {
	m := New[string, int](5*time.Second, 10)
	t0 := time.Unix(1000, 0)
	m.Put("a", 1, t0)
	for _, c := range []struct {
		at   time.Duration
		want bool
	}{{0, true}, {4 * time.Second, true}, {5 * time.Second, false}, {-time.Second, false}} {
		if _, ok := m.Get("a", t0.Add(c.at)); ok != c.want {
			t.Errorf("at %s: found %v, want %v", c.at, ok, c.want)
		}
	}
}

func TestADroppedEntryIsGoneAtOnce(t *testing.T) {
	m := New[string, int](time.Minute, 10)
	now := time.Now()
	m.Put("a", 1, now)
	m.Put("b", 2, now)
	m.Drop("a")
	if _, ok := m.Get("a", now); ok {
		t.Fatal("a dropped entry was still found")
	}
	if v, ok := m.Get("b", now); !ok || v != 2 {
		t.Fatalf("b = %d, %v; want 2, true", v, ok)
	}
}

func TestTheMapNeverHoldsMoreThanItsCap(t *testing.T) {
	m := New[int, int](time.Minute, 100)
	now := time.Now()
	for i := range 1000 {
		m.Put(i, i, now)
		if m.Len() > 100 {
			t.Fatalf("after %d puts the map holds %d entries, above its cap of 100", i+1, m.Len())
		}
	}
	// Expired entries go first: the fresh ones stay.
	m2 := New[int, int](time.Second, 3)
	m2.Put(1, 1, now)
	m2.Put(2, 2, now.Add(2*time.Second))
	m2.Put(3, 3, now.Add(2*time.Second))
	m2.Put(4, 4, now.Add(2*time.Second))
	if _, ok := m2.Get(2, now.Add(2*time.Second)); !ok {
		t.Fatal("a fresh entry was dropped while an expired one could go")
	}
	if m2.Len() != 3 {
		t.Fatalf("holds %d, want 3 (the expired one dropped)", m2.Len())
	}
}
