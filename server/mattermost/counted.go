package mattermost

import (
	"maps"
	"sync"

	"github.com/mattermost/mattermost/server/public/plugin"
)

//go:generate go run ../../build/countedapi .

// Counts is how many times each plugin API method and each method of the
// database driver was called in this process: every one is a round trip
// to Mattermost, gob-encoded on both sides. The bench and the e2e test of
// round trips per tool (docs/performance.md) read it; the shipped plugin
// counts nothing unless Mattermost's environment asks (see Counted).
type Counts struct {
	mu sync.Mutex
	n  map[string]int64
}

// DriverPrefix starts the name of a database driver method in Counts
// (build/countedapi writes it).
const DriverPrefix = "driver."

func (c *Counts) add(method string) {
	c.mu.Lock()
	c.n[method]++
	c.mu.Unlock()
}

// Snapshot is the counts so far, by method name; the driver's methods
// start with DriverPrefix.
func (c *Counts) Snapshot() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n)
}

// Counted wraps the plugin API and the database driver (nil stays nil) so
// that every call of either is counted in the Counts returned.
func Counted(api plugin.API, driver plugin.Driver) (plugin.API, plugin.Driver, *Counts) {
	c := &Counts{n: map[string]int64{}}
	if driver != nil {
		driver = &countedDriver{driver: driver, counts: c}
	}
	return &countedAPI{api: api, counts: c}, driver, c
}

// countedAPI is the plugin API, every method counted (counted_api_*.go).
type countedAPI struct {
	api    plugin.API
	counts *Counts
}

// countedDriver is the database driver, every method counted under
// DriverPrefix (counted_driver.go).
type countedDriver struct {
	driver plugin.Driver
	counts *Counts
}
