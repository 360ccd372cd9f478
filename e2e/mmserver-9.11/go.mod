module example.com/mmserver

go 1.22

require (
	github.com/mattermost/mattermost/server/v8 v8.0.0-20240725195723-b244bb621d4d
	github.com/mattermost/mattermost/server/public v0.1.6
)

replace github.com/olekukonko/tablewriter => github.com/olekukonko/tablewriter v0.0.5
