package mattermost

import (
	"bytes"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/pluginapi"
)

// Logger is the plugin's key-value logger. Every line is a plugin API
// round trip, so a debug line goes to Mattermost only when one of its log
// targets keeps debug lines: otherwise Mattermost would drop it after
// the round trip.
type Logger struct {
	log *pluginapi.LogService
	g   *Gateway
}

func (l Logger) Debug(msg string, keyValuePairs ...any) {
	if keepsDebug(l.g.config()) {
		l.log.Debug(msg, keyValuePairs...)
	}
}

func (l Logger) Info(msg string, keyValuePairs ...any) { l.log.Info(msg, keyValuePairs...) }

func (l Logger) Warn(msg string, keyValuePairs ...any) { l.log.Warn(msg, keyValuePairs...) }

func (l Logger) Error(msg string, keyValuePairs ...any) { l.log.Error(msg, keyValuePairs...) }

// keepsDebug reports whether Mattermost's logging writes debug lines
// anywhere: the console or the file at debug or trace, or advanced logging
// (whose targets may take any level), or a configuration not read.
func keepsDebug(cfg *model.Config) bool {
	if cfg == nil {
		return true
	}
	ls := cfg.LogSettings
	debug := func(enabled *bool, level *string) bool {
		if enabled == nil || !*enabled {
			return false
		}
		return level == nil || strings.EqualFold(*level, "debug") || strings.EqualFold(*level, "trace")
	}
	if adv := bytes.TrimSpace(ls.AdvancedLoggingJSON); len(adv) > 0 && !bytes.Equal(adv, []byte("{}")) && !bytes.Equal(adv, []byte("null")) && !bytes.Equal(adv, []byte(`""`)) {
		return true
	}
	return debug(ls.EnableConsole, ls.ConsoleLevel) || debug(ls.EnableFile, ls.FileLevel)
}
