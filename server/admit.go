package main

import (
	"github.com/mcp-server/mattermost-plugin-mcp/server/admission"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

// admits is the admin's rule of who may connect, as the settings say at
// this request, over what this node knows of the person (read from
// Mattermost at most a minute ago, and only what the settings need).
func (p *Plugin) admits(gw *mattermost.Gateway) func(userID string) (admission.Verdict, error) {
	return func(userID string) (admission.Verdict, error) {
		c := p.config.Get()
		facts, err := gw.AdmissionFacts(userID, admission.Needs(c))
		if err != nil {
			return admission.Verdict{}, err
		}
		return admission.Decide(c, facts), nil
	}
}
