package main

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// Change notices of the tools offered. What is offered is a function of
// the configuration alone (catalogue.Offered), so every node decides for
// itself whether it changed, with no cluster event: Mattermost calls
// OnConfigurationChange on every node for every change of its settings, and
// every node reads the licence again once a minute (serverFeatures), which
// the watch below asks for even while no request comes. A cluster event
// would only tell each node a second time. Each node then tells the
// clients whose streams are open on it (transport.ListChanged).
//
// The prompts and the resource templates offered follow the tools offered
// (prompts.Set and resources.Set derive them from catalogue.Offered), so a
// change of the tools is told for all three lists; a client that refetches
// a list that did not change loses nothing.

// offeredWatch tells connected clients when the tools offered change.
type offeredWatch struct {
	offered func() string
	tell    func()

	mu   sync.Mutex
	last string

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// offeredNames is the names of the tools cfg offers, in one string.
func offeredNames(cat *catalogue.Catalogue, cfg config.Configuration) string {
	var names []string
	for _, t := range cat.All() {
		if catalogue.Offered(t, cfg) {
			names = append(names, t.Name)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

// watchOffered starts the watch from what is offered now, checking again
// every period (a licence added or removed is seen within it).
func watchOffered(cat *catalogue.Catalogue, current func() config.Configuration, t *transport.Transport, period time.Duration) *offeredWatch {
	w := &offeredWatch{
		offered: func() string { return offeredNames(cat, current()) },
		tell:    func() { t.ListChanged(transport.ToolsList | transport.PromptsList | transport.ResourcesList) },
		stop:    make(chan struct{}), done: make(chan struct{}),
	}
	w.last = w.offered()
	go w.run(period)
	return w
}

func (w *offeredWatch) run(period time.Duration) {
	defer close(w.done)
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-tick.C:
			w.check()
		}
	}
}

// check tells the clients when the tools offered differ from the last
// check's; the plugin calls it on every configuration change.
func (w *offeredWatch) check() {
	now := w.offered()
	w.mu.Lock()
	changed := now != w.last
	w.last = now
	w.mu.Unlock()
	if changed {
		w.tell()
	}
}

// Close stops the watch (OnDeactivate).
func (w *offeredWatch) Close() error {
	w.once.Do(func() { close(w.stop) })
	<-w.done
	return nil
}
