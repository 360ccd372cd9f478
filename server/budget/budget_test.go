package budget

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// waitFor polls until cond holds, failing the test after a while.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func waiting(b *Budget) int { _, _, n := b.Status(); return n }
func used(b *Budget) int64  { _, u, _ := b.Status(); return u }

// acquireAsync starts an Acquire and reports its outcome on the channel.
type outcome struct {
	release func()
	err     error
}

func acquireAsync(ctx context.Context, b *Budget, cost int64) <-chan outcome {
	ch := make(chan outcome, 1)
	go func() {
		r, err := b.Acquire(ctx, cost)
		ch <- outcome{r, err}
	}()
	return ch
}

func mustAcquire(t *testing.T, b *Budget, cost int64) func() {
	t.Helper()
	r, err := b.Acquire(context.Background(), cost)
	if err != nil {
		t.Fatalf("Acquire(%d): %v", cost, err)
	}
	return r
}

func TestAnAcquireWaitsUntilEnoughIsReleasedThenProceeds(t *testing.T) {
	b := New(100)
	first := mustAcquire(t, b, 70)
	got := acquireAsync(context.Background(), b, 50)
	waitFor(t, "the second taker queues", func() bool { return waiting(b) == 1 })
	select {
	case o := <-got:
		t.Fatalf("70 + 50 bytes of 100 were granted at once: %v", o.err)
	case <-time.After(20 * time.Millisecond):
	}
	first()
	o := <-got
	if o.err != nil {
		t.Fatalf("after the release the waiting taker was refused: %v", o.err)
	}
	if u := used(b); u != 50 {
		t.Fatalf("used = %d, want 50", u)
	}
	o.release()
	if u := used(b); u != 0 {
		t.Fatalf("used after every release = %d, want 0", u)
	}
}

func TestAWaitWhoseContextEndsHoldsNothingAndLetsTheNextIn(t *testing.T) {
	b := New(100)
	holder := mustAcquire(t, b, 60)
	ctx, cancel := context.WithCancel(context.Background())
	big := acquireAsync(ctx, b, 80)
	waitFor(t, "the big taker queues", func() bool { return waiting(b) == 1 })
	small := acquireAsync(context.Background(), b, 30)
	waitFor(t, "the small taker queues behind it", func() bool { return waiting(b) == 2 })

	cancel()
	if o := <-big; !errors.Is(o.err, context.Canceled) || o.release != nil {
		t.Fatalf("a cancelled wait answered %v, want context.Canceled and nothing held", o.err)
	}
	// The cancelled head no longer holds back the small taker, which fits.
	o := <-small
	if o.err != nil {
		t.Fatalf("the taker behind a cancelled one was refused: %v", o.err)
	}
	if u := used(b); u != 90 {
		t.Fatalf("used = %d, want 60 + 30: the cancelled wait must hold nothing", u)
	}
	o.release()
	holder()
	if u := used(b); u != 0 {
		t.Fatalf("used after every release = %d, want 0", u)
	}
}

func TestAWaitWithAnExpiredDeadlineAnswersTheDeadline(t *testing.T) {
	b := New(10)
	holder := mustAcquire(t, b, 10)
	defer holder()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := b.Acquire(ctx, 5)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if n := waiting(b); n != 0 {
		t.Fatalf("%d takers still queued after their deadline", n)
	}
}

func TestAHolderThatPanicsGivesItsBytesBackThroughItsDeferredRelease(t *testing.T) {
	b := New(100)
	func() {
		defer func() { _ = recover() }()
		release := mustAcquire(t, b, 100)
		defer release()
		panic("converter crashed")
	}()
	if u := used(b); u != 0 {
		t.Fatalf("used after a panicking holder = %d, want 0", u)
	}
	release, ok := b.TryAcquire(100)
	if !ok {
		t.Fatal("the whole allowance is not free again after the panic")
	}
	release()
}

func TestReleasingTwiceGivesBackOnce(t *testing.T) {
	b := New(100)
	a := mustAcquire(t, b, 40)
	c := mustAcquire(t, b, 40)
	a()
	a()
	if u := used(b); u != 40 {
		t.Fatalf("used = %d after releasing one of two takers twice, want 40", u)
	}
	c()
}

func TestACostAboveTheWholeAllowanceIsRefusedAtOnce(t *testing.T) {
	b := New(100)
	holder := mustAcquire(t, b, 100) // even with a queue to wait in, it must not wait
	defer holder()
	start := time.Now()
	_, err := b.Acquire(context.Background(), 101)
	var tooLarge *TooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Cost != 101 || tooLarge.Capacity != 100 {
		t.Fatalf("err = %v, want a *TooLargeError of 101 against 100", err)
	}
	if waited := time.Since(start); waited > time.Second {
		t.Fatalf("the refusal took %s", waited)
	}
	if _, ok := b.TryAcquire(101); ok {
		t.Fatal("TryAcquire granted more than the whole allowance")
	}
}

func TestTakersAreServedInArrivalOrderSoABigOneIsNotStarvedBySmallOnes(t *testing.T) {
	b := New(10)
	holder := mustAcquire(t, b, 5)
	big := acquireAsync(context.Background(), b, 10)
	waitFor(t, "the big taker queues", func() bool { return waiting(b) == 1 })
	// Five bytes are free, so a small taker would fit, but it came later.
	var smalls []<-chan outcome
	for i := range 5 {
		smalls = append(smalls, acquireAsync(context.Background(), b, 1))
		waitFor(t, "the small takers queue", func() bool { return waiting(b) == 2+i })
	}
	select {
	case <-smalls[0]:
		t.Fatal("a small taker overtook the big one waiting ahead of it")
	case <-time.After(20 * time.Millisecond):
	}
	if _, ok := b.TryAcquire(1); ok {
		t.Fatal("TryAcquire overtook waiting takers")
	}

	holder()
	o := <-big
	if o.err != nil {
		t.Fatalf("the big taker: %v", o.err)
	}
	select {
	case <-smalls[0]:
		t.Fatal("a small taker got in while the big one holds everything")
	case <-time.After(20 * time.Millisecond):
	}
	o.release()
	for i, ch := range smalls {
		if s := <-ch; s.err != nil {
			t.Fatalf("small taker %d: %v", i, s.err)
		} else {
			defer s.release()
		}
	}
}

func TestShrinkingRefusesQueuedTakersThatNoLongerFitAndLosesNothing(t *testing.T) {
	b := New(100)
	holder := mustAcquire(t, b, 90)
	tooBig := acquireAsync(context.Background(), b, 60)
	waitFor(t, "the first taker queues", func() bool { return waiting(b) == 1 })
	fits := acquireAsync(context.Background(), b, 40)
	waitFor(t, "the second taker queues", func() bool { return waiting(b) == 2 })

	b.Resize(50)
	var tooLarge *TooLargeError
	if o := <-tooBig; !errors.As(o.err, &tooLarge) || tooLarge.Capacity != 50 {
		t.Fatalf("a queued taker larger than the new size answered %v, want a *TooLargeError against 50", o.err)
	}
	// 90 are still taken out of 50: nobody gets in until they come back.
	select {
	case <-fits:
		t.Fatal("a taker got in while more than the new size is taken")
	case <-time.After(20 * time.Millisecond):
	}
	holder()
	o := <-fits
	if o.err != nil {
		t.Fatalf("the taker that fits the new size: %v", o.err)
	}
	o.release()
	if c, u, n := b.Status(); c != 50 || u != 0 || n != 0 {
		t.Fatalf("status = %d, %d, %d; want 50 bytes, none taken, none waiting", c, u, n)
	}
}

func TestGrowingLetsWaitingTakersInAtOnce(t *testing.T) {
	b := New(10)
	holder := mustAcquire(t, b, 10)
	defer holder()
	got := acquireAsync(context.Background(), b, 20)
	// 20 of 10 is refused at once; grow first, then ask again.
	if o := <-got; o.err == nil {
		t.Fatal("20 bytes of 10 were granted")
	}
	waiter := acquireAsync(context.Background(), b, 10)
	waitFor(t, "the taker queues", func() bool { return waiting(b) == 1 })
	b.Resize(20)
	o := <-waiter
	if o.err != nil {
		t.Fatalf("after growing, the waiting taker: %v", o.err)
	}
	o.release()
}

func TestManyGoroutinesNeverDeadlockAndNeverExceedTheAllowance(t *testing.T) {
	const (
		goroutines = 64
		rounds     = 200
		capacity   = 1000
	)
	b := New(capacity)
	var inUse, peak atomic.Int64
	var wg sync.WaitGroup
	done := make(chan struct{})
	// Resizing now and then, between half and the whole allowance, must
	// neither deadlock nor lose a byte.
	go func() {
		rng := rand.New(rand.NewPCG(7, 7))
		for {
			select {
			case <-done:
				b.Resize(capacity)
				return
			case <-time.After(time.Millisecond):
				b.Resize(capacity/2 + rng.Int64N(capacity/2+1))
			}
		}
	}()
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range rounds {
				cost := 1 + rng.Int64N(capacity/2)
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rng.IntN(3))*time.Millisecond)
				release, err := b.Acquire(ctx, cost)
				cancel()
				if err != nil {
					var tooLarge *TooLargeError
					if !errors.Is(err, context.DeadlineExceeded) && !errors.As(err, &tooLarge) {
						t.Errorf("Acquire: %v", err)
					}
					continue
				}
				now := inUse.Add(cost)
				for p := peak.Load(); now > p && !peak.CompareAndSwap(p, now); p = peak.Load() {
				}
				if rng.IntN(10) == 0 {
					release() // released twice below: must count once
				}
				inUse.Add(-cost)
				release()
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(60 * time.Second):
		t.Fatal("the takers did not finish: deadlock")
	}
	close(done)
	if p := peak.Load(); p > capacity {
		t.Fatalf("%d bytes were held at once, more than the allowance of %d", p, capacity)
	}
	waitFor(t, "the resizer stops", func() bool { c, _, _ := b.Status(); return c == capacity })
	if c, u, n := b.Status(); u != 0 || n != 0 {
		t.Fatalf("after every taker finished: %d of %d bytes taken, %d waiting; want none", u, c, n)
	}
	// Everything came back: the whole allowance can be taken in one piece.
	release, ok := b.TryAcquire(capacity)
	if !ok {
		t.Fatal("capacity was lost: the whole allowance cannot be taken")
	}
	release()
}

func TestAGrantThatRacesTheEndOfAWaitIsGivenBack(t *testing.T) {
	b := New(10)
	for i := range 2000 {
		holder := mustAcquire(t, b, 10)
		ctx, cancel := context.WithCancel(context.Background())
		got := acquireAsync(ctx, b, 10)
		waitFor(t, "the taker queues", func() bool { return waiting(b) == 1 })
		// The release grants the queued taker while its context ends.
		released := make(chan struct{})
		go func() { holder(); close(released) }()
		cancel()
		if o := <-got; o.err == nil {
			o.release()
		}
		<-released
		if u := used(b); u != 0 {
			t.Fatalf("round %d: %d bytes still taken after every taker finished", i, u)
		}
	}
}
