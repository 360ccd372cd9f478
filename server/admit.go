package main

import (
	"github.com/mcp-server/mattermost-plugin-mcp/server/admission"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
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

// checkConnectLists refuses a team or group newly listed in c that is no
// team or group of this Mattermost (admission.Check), so the admin reads
// what is wrong in the System Console while saving. Before OnActivate
// there is no gateway to look them up with: nothing is checked.
func (p *Plugin) checkConnectLists(c config.Configuration) error {
	gw := p.gateway.Load()
	if gw == nil || p.config == nil {
		return nil
	}
	saved := p.config.Get()
	if err := admission.Check(admission.Teams, c.ConnectTeamList(), saved.ConnectTeamList(), gw.TeamDirectory()); err != nil {
		return err
	}
	return admission.Check(admission.Groups, c.ConnectGroupList(), saved.ConnectGroupList(), gw.GroupDirectory())
}
