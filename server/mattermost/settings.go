package mattermost

import "github.com/mattermost/mattermost/server/public/model"

// Setting is the admin's value of one of Mattermost's boolean settings in
// a configuration the plugin API handed over. Every boolean setting is read
// through it.
//
// Mattermost fills in every default before a plugin sees its configuration,
// but the configuration crosses the plugin RPC in gob, which leaves out zero
// values and so drops a pointer to false: a setting the admin turned off
// arrives nil (measured on 11.4 with ShowEmailAddress and
// EnableCustomUserStatuses off). A setting this Mattermost version does not
// have arrives nil as well, and a feature the server lacks is not on. So nil
// is off, never "unset, so on".
func Setting(b *bool) bool { return b != nil && *b }

// setting is one boolean setting of the server's configuration now,
// through Setting; a configuration that cannot be read has every setting
// off.
func (g *Gateway) setting(pick func(*model.Config) *bool) bool {
	cfg := g.config()
	return cfg != nil && Setting(pick(cfg))
}
