package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin"
)

// The plugin's id and name are written in plugin.json and nowhere else: the
// plugin reads them from the plugin.json of the bundle Mattermost unpacked
// (GetBundlePath works on every server version the plugin supports).

// readManifest reads the installed bundle's plugin.json.
func readManifest(api plugin.API) (*model.Manifest, error) {
	dir, err := api.GetBundlePath()
	if err != nil {
		return nil, fmt.Errorf("find the plugin's bundle: %w", err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "plugin.json"))
	if err != nil {
		return nil, fmt.Errorf("read the plugin's plugin.json: %w", err)
	}
	var m model.Manifest
	if err := json.Unmarshal(raw, &m); err != nil || m.Id == "" {
		return nil, fmt.Errorf("the plugin's plugin.json names no id (%v)", err)
	}
	if m.Name == "" {
		m.Name = m.Id
	}
	return &m, nil
}

// manifest is the installed bundle's plugin.json, read once.
func (p *Plugin) manifest() (*model.Manifest, error) {
	p.manifestOnce.Do(func() { p.manifestValue, p.manifestErr = readManifest(p.API) })
	return p.manifestValue, p.manifestErr
}
