// Command bare is the smallest Mattermost plugin there is: what every
// plugin's server binary links before any code of its own (bundlefloor
// weighs it).
package main

import "github.com/mattermost/mattermost/server/public/plugin"

type nothing struct{ plugin.MattermostPlugin }

func main() { plugin.ClientMain(&nothing{}) }
