package mattermost

import (
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
)

func TestOAuthSignInNeedsTheProviderAndDynamicRegistrationOnAServerThatHasThem(t *testing.T) {
	cfg := func(provider bool, registration *bool) *model.Config {
		c := &model.Config{}
		c.ServiceSettings.EnableOAuthServiceProvider = model.NewPointer(provider)
		c.ServiceSettings.EnableDynamicClientRegistration = registration
		return c
	}
	cases := []struct {
		name   string
		cfg    *model.Config
		ok     bool
		reason string
	}{
		{"both on", cfg(true, model.NewPointer(true)), true, ""},
		{"provider off", cfg(false, model.NewPointer(true)), false, "EnableOAuthServiceProvider"},
		{"registration off", cfg(true, model.NewPointer(false)), false, "EnableDynamicClientRegistration"},
		{"a server without the setting (before 11.4)", cfg(true, nil), false, "version"},
		{"no configuration", nil, false, "could not be read"},
	}
	for _, c := range cases {
		ok, reason := OAuthSignIn(c.cfg)
		if ok != c.ok || !strings.Contains(reason, c.reason) {
			t.Errorf("%s: got %v %q", c.name, ok, reason)
		}
	}
}

func TestOnlyMattermost11Point4AndLaterCountAsStreamingAPluginsResponse(t *testing.T) {
	for v, want := range map[string]bool{"11.4.0": true, "11.10.1": true, "12.0.0": true, "11.3.2": false, "11.1.0": false, "9.11.0": false, "10.10.0": false, "": false, "dev": false} {
		if got := StreamsResponses(v); got != want {
			t.Errorf("%q: %v, want %v", v, got, want)
		}
	}
}
