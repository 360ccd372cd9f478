package tools

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/budget"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
	"github.com/mcp-server/mattermost-plugin-mcp/server/viewcache"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

// Memory for reading files. Every read of a file takes what it will need
// from the process's budget (the setting "Memory for reading files") before
// its bytes are fetched, and what decoding them will need before they are
// decoded, and gives it all back once its answer is built. A read that must
// wait does so in turn, telling a client that sent a progress token; one
// that still cannot start after conversionWait answers that the server is
// busy; a file that alone needs more than the whole budget is described.

const (
	// conversionWait: clients commonly give a tool call 60 seconds; waiting
	// at most half of it leaves the other half for the conversion itself.
	conversionWait = 30 * time.Second
	// conversionProgressEvery: a client that sent a progress token hears
	// this often that the read still waits, so it does not time it out.
	conversionProgressEvery = 5 * time.Second
	// fetchCopies: the plugin API hands a file back through gob, which
	// reads the whole reply into a buffer, then copies the bytes out of it.
	fetchCopies = 2
	// answerBytes: a text answer (a window of at most 32 KiB, its header,
	// their JSON) and the call's own state.
	answerBytes = 1 << 20
	// mediaAnswerBytes: an image, audio or video answer is base64 (4/3 of
	// the bytes) inside a JSON string, built once as a Go string, once as
	// JSON: about 3 x fileview.MaxMediaBytes, rounded up.
	mediaAnswerBytes = 4 * fileview.MaxMediaBytes
	// pdfTextCopies: Mattermost's extracted text is normalised (a copy) and
	// counted before a window is cut from it.
	pdfTextCopies = 2
	// saveCopyBytes: saving into the workspace writes 1 MiB chunks, each
	// encoded once more for its KV request.
	saveCopyBytes = 3 * workspace.ChunkSize
	// runtimeHeadroom: what the process holds beyond the budget: its own
	// heap at rest (about 30 MiB), the plugin RPC's buffers, which keep the
	// largest reply they have carried, and work the budget does not count.
	runtimeHeadroom = 128 << 20
	// collectAfterBytes: a read that held more than this (a large image, a
	// long document) has its garbage collected before its memory is given
	// back; one collection of the plugin's small live heap takes tens of
	// milliseconds, next to the second or more such a conversion takes.
	collectAfterBytes = 64 << 20
)

func noRelease() {}

// memory is the process's budget for reading files, sized to the current
// setting: a change takes effect on the next read. The Go runtime's soft
// memory limit follows it: a read gives its memory back as soon as its
// answer is built, long before the collector would otherwise return the
// garbage, and without the limit the next read would count as free what the
// heap still holds, growing the process to about twice the budget.
func (d Deps) memory(cfg config.Configuration) *budget.Budget {
	d.Conversions.Resize(cfg.ConversionMemoryBytes())
	if limit := cfg.ConversionMemoryBytes() + runtimeHeadroom; debug.SetMemoryLimit(-1) != limit {
		debug.SetMemoryLimit(limit)
	}
	return d.Conversions
}

// giveBack returns what a read took. A read that took much first has the
// collector return its garbage: the budget would otherwise let the next read
// in while the heap still holds this one's buffers, and a large allocation
// does not wait for the collector, so the process would briefly hold both.
func giveBack(release func(), cost int64) func() {
	if cost < collectAfterBytes {
		return release
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			runtime.GC()
			release()
		})
	}
}

// overBudget is a file that alone needs more memory than the whole budget.
type overBudget struct {
	need, capacity int64
	basis          string // what the need comes from, e.g. "decoding 5,700×5,700 pixels of 16-bit colour"
}

func (o *overBudget) Error() string {
	return fmt.Sprintf("needs %d bytes, more than the budget of %d", o.need, o.capacity)
}

// reason says why the file is not read and what can be done, for a
// description.
func (o *overBudget) reason() string {
	basis := ""
	if o.basis != "" {
		basis = " (" + o.basis + ")"
	}
	return fmt.Sprintf("reading it would need about %s of memory%s, more than the %s this server allows for reading files at once, so it was not decoded; "+
		"to read it here, an admin can raise \"Memory for reading files (MiB)\" in System Console > Plugins > MCP Server",
		mib(o.need), basis, mib(o.capacity))
}

// busyError is a read that could not get its memory within conversionWait.
type busyError struct{ need, capacity int64 }

func (b *busyError) Error() string {
	return fmt.Sprintf("no %d bytes of the budget of %d came free in time", b.need, b.capacity)
}

// readRefusal words a read that waited in vain for memory, or asked for a
// window past the end, as a refusal; any other error passes as it is.
func readRefusal(err error, name string) error {
	var busy *busyError
	var rangeErr *fileview.RangeError
	switch {
	case errors.As(err, &rangeErr):
		return refusal.New(rangeErr.Error(), "")
	case errors.As(err, &busy):
		return refusal.New(fmt.Sprintf("This server is busy reading other files: reading %q needs about %s of the %s it allows for reading files at once, "+
			"and not enough came free within %d seconds. Nothing is wrong with the file.",
			present.Name(name), mib(busy.need), mib(busy.capacity), int(conversionWait.Seconds())), "Try the same call again in a moment.")
	}
	return err
}

func mib(n int64) string { return fmt.Sprintf("%d MiB", (n+(1<<20)-1)>>20) }

// held is memory taken for a read: release gives it back (once, however
// often it is called). err is an *overBudget when the file needs more than
// the whole budget, to fetch (then it was not fetched) or to decode; then
// nothing is held.
type held struct {
	release func()
	cost    int64
	err     error
}

// fetchAndTake fetches a file's bytes with the memory the fetch needs taken
// first, then takes what decoding them will need, as their header says.
// Both waits together end at conversionWait. Waiting for the decoding's
// share while holding the fetch's could leave every read holding a share
// and waiting for more: so when it is not free at once, the bytes and the
// fetch's share are given back, and the read waits for the whole and fetches
// again.
func (d Deps) fetchAndTake(ctx context.Context, mem *budget.Budget, size int64, fetch func() ([]byte, error)) ([]byte, held, error) {
	deadline := time.Now().Add(conversionWait)
	need := fetchCopies*size + answerBytes
	basis := "fetching its " + present.Size(size)
	for attempt := 0; ; attempt++ {
		release, err := d.take(ctx, mem, need, deadline)
		var tooLarge *budget.TooLargeError
		if errors.As(err, &tooLarge) {
			return nil, held{release: noRelease, err: &overBudget{need: need, capacity: tooLarge.Capacity, basis: basis}}, nil
		}
		if err != nil {
			return nil, held{}, err
		}
		data, err := fetch()
		if err != nil {
			release()
			return nil, held{}, err
		}
		est := fileview.EstimateCost(data)
		total := fetchCopies*int64(len(data)) + answerBytes + est.Bytes
		switch est.Kind {
		case fileview.KindImage, fileview.KindAudio, fileview.KindVideo:
			total += mediaAnswerBytes
		}
		if total <= need {
			return data, held{release: release, cost: need}, nil
		}
		capacity, _, _ := mem.Status()
		if total > capacity {
			release()
			return data, held{release: noRelease, err: &overBudget{need: total, capacity: capacity, basis: est.Basis}}, nil
		}
		if more, ok := mem.TryAcquire(total - need); ok {
			return data, held{release: func() { more(); release() }, cost: total}, nil
		}
		release()
		if attempt > 0 {
			// A workspace file replaced by a larger one in the meantime.
			return nil, held{}, &busyError{need: total, capacity: capacity}
		}
		need, basis = total, est.Basis
	}
}

// take takes cost bytes of mem, waiting in turn until deadline at the
// latest: a *busyError when that passes, a *budget.TooLargeError when the
// cost is more than the whole budget, ctx's error when the call ends.
func (d Deps) take(ctx context.Context, mem *budget.Budget, cost int64, deadline time.Time) (func(), error) {
	if release, ok := mem.TryAcquire(cost); ok {
		return release, nil
	}
	capacity, _, waiting := mem.Status()
	transport.Tell(ctx, mcp.LoggingLevelNotice, fmt.Sprintf(
		"The read waits its turn for memory: it needs about %s of the %s this server allows for reading files at once, which other reads are using (%d waiting).",
		mib(cost), mib(capacity), waiting))
	wait, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		d.tellWaiting(ctx, mem, cost, deadline, stop)
	}()
	release, err := mem.Acquire(wait, cost)
	close(stop)
	wg.Wait()
	switch {
	case err == nil:
		return release, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, context.DeadlineExceeded):
		transport.Tell(ctx, mcp.LoggingLevelWarning, "The read gave up waiting for memory: this server is busy reading other files; the call answers how to retry.")
		capacity, _, _ := mem.Status()
		return nil, &busyError{need: cost, capacity: capacity}
	}
	return nil, err
}

// tellWaiting sends a client that sent a progress token a notification now
// and every conversionProgressEvery until stop is closed. Progress is the
// seconds the read has waited of conversionWait, so it grows across both
// waits of one read. A client that cannot take them loses only them.
func (d Deps) tellWaiting(ctx context.Context, mem *budget.Budget, cost int64, deadline time.Time, stop <-chan struct{}) {
	tok := transport.ProgressToken(ctx)
	srv := server.ServerFromContext(ctx)
	if tok == nil || srv == nil {
		return
	}
	tick := time.NewTicker(conversionProgressEvery)
	defer tick.Stop()
	for {
		capacity, _, waiting := mem.Status()
		waited := conversionWait - time.Until(deadline)
		err := srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
			"progressToken": tok,
			"progress":      waited.Round(time.Millisecond).Seconds(),
			"total":         conversionWait.Seconds(),
			"message": fmt.Sprintf("Waiting for memory to read the file: it needs about %s of the %s this server allows for reading files at once, which other reads are using (%d waiting).",
				mib(cost), mib(capacity), waiting),
		})
		if err != nil {
			d.MM.Log().Debug("A progress notification was not delivered", "error", err.Error())
		}
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// keepLater keeps a converted text for the next windows in the background
// (viewcache.KeepLater), with the memory that takes set aside from the
// budget until it is written. With no memory free at once, or the most
// keeps already being written, it keeps nothing: the next window converts
// again.
func (d Deps) keepLater(mem *budget.Budget, userID string, key viewcache.Key, text *fileview.Text) {
	cost := viewcache.KeepBytes(len(text.Body))
	release, ok := mem.TryAcquire(cost)
	if !ok {
		return
	}
	started := d.Views.KeepLater(userID, key, text, func(err error) {
		release()
		if err != nil {
			d.MM.Log().Warn("Could not keep a converted text for the next window", "user_id", userID, "error", err.Error())
		}
	})
	if !started {
		release()
	}
}

// keptView cuts the window from a text an earlier read kept, holding its
// share of the memory as a PDF's text does. ok is false when there is no
// kept text (or no memory free at once for it): then the file is read.
func (d Deps) keptView(ctx context.Context, mem *budget.Budget, key viewcache.Key, req fileview.Request) (*fileview.View, func(), bool) {
	if d.Views == nil || key.ID == "" {
		return nil, noRelease, false
	}
	kept, ok := d.Views.Open(key)
	if !ok {
		return nil, noRelease, false
	}
	cost := pdfTextCopies*int64(kept.Bytes()) + answerBytes
	release, ok := mem.TryAcquire(cost)
	if !ok {
		return nil, noRelease, false
	}
	release = giveBack(release, cost)
	text, ok := kept.Text()
	if !ok {
		release()
		return nil, noRelease, false
	}
	view, err := text.Window(ctx, req)
	if err != nil {
		// A window that does not exist is answered by converting, which
		// words the range error the same way.
		release()
		return nil, noRelease, false
	}
	return view, release, true
}
