package mattermost

import (
	"encoding/json"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
)

func TestADebugLineIsSentOnlyWhereMattermostKeepsDebugLines(t *testing.T) {
	on, off := model.NewPointer(true), model.NewPointer(false)
	for _, c := range []struct {
		name string
		ls   model.LogSettings
		want bool
	}{
		{"file at INFO, no console", model.LogSettings{EnableFile: on, FileLevel: model.NewPointer("INFO"), EnableConsole: off}, false},
		{"file at DEBUG", model.LogSettings{EnableFile: on, FileLevel: model.NewPointer("DEBUG"), EnableConsole: off}, true},
		{"console at debug (Mattermost's default)", model.LogSettings{EnableConsole: on, ConsoleLevel: model.NewPointer("debug")}, true},
		{"console at DEBUG but off", model.LogSettings{EnableConsole: off, ConsoleLevel: model.NewPointer("DEBUG"), EnableFile: on, FileLevel: model.NewPointer("WARN")}, false},
		{"file at TRACE", model.LogSettings{EnableFile: on, FileLevel: model.NewPointer("TRACE")}, true},
		{"advanced logging, any level", model.LogSettings{AdvancedLoggingJSON: json.RawMessage(`{"t":{"type":"file"}}`)}, true},
		{"advanced logging empty", model.LogSettings{AdvancedLoggingJSON: json.RawMessage(`{}`), EnableFile: on, FileLevel: model.NewPointer("INFO")}, false},
	} {
		if got := keepsDebug(&model.Config{LogSettings: c.ls}); got != c.want {
			t.Errorf("%s: keepsDebug = %v, want %v", c.name, got, c.want)
		}
	}
	if !keepsDebug(nil) {
		t.Error("without a configuration a debug line must be sent")
	}
}
