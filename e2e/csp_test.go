package e2e

import (
	"context"
	"strings"
	"sync"
	"testing"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// cspWatches holds, per tab a view is hosted in, what Chromium reported
// against the page's Content Security Policy.
var cspWatches sync.Map // context.Context -> *cspWatch

type cspWatch struct {
	mu   sync.Mutex
	seen []string
}

// watchCSP collects the CSP violations Chromium reports in the tab (its
// console's "Refused to …" errors, for the host page and the view's frame)
// and fails the test at its end if there were any that the test did not
// take with cspViolations.
func watchCSP(t *testing.T, tab context.Context) {
	t.Helper()
	w := &cspWatch{}
	cspWatches.Store(tab, w)
	err := chromedp.Listen(tab, func(ev any) {
		var text string
		switch e := ev.(type) {
		case *cdplog.EventEntryAdded:
			text = e.Entry.Text
		case *runtime.EventConsoleAPICalled:
			for _, a := range e.Args {
				text += string(a.Value) + " "
			}
		}
		if strings.Contains(text, "Content Security Policy") {
			w.mu.Lock()
			w.seen = append(w.seen, text)
			w.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatalf("listen to the tab: %v", err)
	}
	t.Cleanup(func() {
		if seen := cspViolations(tab); len(seen) > 0 {
			t.Errorf("the view broke its Content Security Policy %d times: %s", len(seen), strings.Join(seen, "\n"))
		}
		cspWatches.Delete(tab)
	})
}

// cspViolations takes the violations reported in the tab so far.
func cspViolations(tab context.Context) []string {
	v, ok := cspWatches.Load(tab)
	if !ok {
		return nil
	}
	w := v.(*cspWatch)
	w.mu.Lock()
	defer w.mu.Unlock()
	seen := w.seen
	w.seen = nil
	return seen
}
