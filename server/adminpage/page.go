package adminpage

import (
	"html/template"
	"net/http"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/response"
)

// view is Status as the page lays it out.
type view struct {
	Status
	WriteDays int
	Other     int // the other choice of days
	MaxClient int // the most people of one client, for the bars
	Days      []dayView
}

type dayView struct {
	Label   string
	Day     string
	Chips   []Total
	Dropped int
}

func (rt *Routes) page(w http.ResponseWriter, r *http.Request) {
	if !rt.allowed(w, r, true) {
		return
	}
	s, err := rt.read(r)
	if err != nil {
		rt.Log.Error("Reading the MCP status for the admin failed", "error", err.Error())
		response.SecurePage(w)
		http.Error(w, "The status could not be read; reload the page shortly.", http.StatusInternalServerError)
		return
	}
	v := view{Status: s, WriteDays: writeDays(r), Other: maxWriteDays}
	if v.WriteDays == maxWriteDays {
		v.Other = defaultWriteDays
	}
	for _, c := range s.Usage.Clients {
		v.MaxClient = max(v.MaxClient, c.People)
	}
	for _, d := range s.Writes {
		t, _ := time.Parse("20060102", d.Day)
		dv := dayView{Label: t.Format("Mon 2 Jan"), Day: t.Format("2006-01-02"), Dropped: d.Dropped}
		for _, o := range outcomeOrder {
			if n := d.Outcomes[o]; n > 0 {
				dv.Chips = append(dv.Chips, Total{Outcome: o, Count: n})
			}
		}
		v.Days = append(v.Days, dv)
	}
	response.SecurePage(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := pageTmpl.Execute(w, v); err != nil {
		rt.Log.Error("Rendering the admin page failed", "error", err.Error())
	}
}

// outcomeOrder is the order of a write's outcomes on the page: as a write
// goes.
var outcomeOrder = []string{"asked", "accepted", "done", "declined", "expired", "withdrawn", "failed"}

var funcs = template.FuncMap{
	// pct is n of total as a percentage for a bar's width, at least a sliver.
	"pct": func(n, total int) int {
		if total <= 0 {
			return 0
		}
		return max(4, n*100/total)
	},
}

var pageTmpl = template.Must(template.New("admin").Funcs(funcs).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>MCP Server — status for admins</title>
<style>
*{box-sizing:border-box}
body{margin:0;background:#f3f4f6;color:#1b1d22;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:60rem;margin:0 auto;padding:1.5rem 1rem 3rem}
.kicker{margin:0 0 .2rem;font-size:.8rem;font-weight:600;letter-spacing:.04em;text-transform:uppercase;color:#5d6068}
h1{margin:0 0 .4rem;font-size:1.6rem;line-height:1.25}
.lede{margin:0 0 1.2rem;color:#3f4350}
h2{margin:0 0 .6rem;font-size:.8rem;font-weight:700;letter-spacing:.05em;text-transform:uppercase;color:#5d6068}
.grid{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:1rem}
.card{background:#fff;border:1px solid #dcdee2;border-radius:8px;padding:1rem 1.2rem;min-width:0}
.wide{grid-column:1/-1}
.state{margin:0 0 .8rem;padding:.7rem 1rem;border-radius:6px;border-left:6px solid;font-weight:600;overflow-wrap:anywhere}
.state[data-ok=true]{background:#e9f5ee;border-color:#2a8a4a}
.state[data-ok=false]{background:#fdf3e7;border-color:#c27a12}
.state span{display:block;font-weight:400;color:#3f4350;margin-top:.2rem}
ul.steps{list-style:none;margin:0;padding:0}
ul.steps li{display:grid;grid-template-columns:1.6rem minmax(0,1fr);gap:.1rem .5rem;padding:.45rem 0;border-top:1px solid #eceef1}
ul.steps li:first-child{border-top:0}
.mark{font-weight:700;text-align:center}
.mark.on{color:#2a8a4a}.mark.off{color:#c43d3d}
.where{grid-column:2;color:#5d6068;font-size:.9rem;overflow-wrap:anywhere}
code{background:#f0f1f3;border-radius:4px;padding:.05rem .3rem;font-size:.9em;overflow-wrap:anywhere}
.big{font-size:2.4rem;font-weight:700;line-height:1.1;margin:0}
.sub{color:#5d6068;font-size:.9rem;margin:.2rem 0 .8rem}
ul.clients{list-style:none;margin:0;padding:0}
ul.clients li{margin:.35rem 0}
.client-row{display:flex;justify-content:space-between;gap:.5rem}
.client-name{overflow-wrap:anywhere}
.bar{height:6px;border-radius:3px;background:#1c58d9;margin-top:.2rem}
ul.days{list-style:none;margin:0;padding:0}
ul.days li{display:flex;flex-wrap:wrap;align-items:baseline;gap:.3rem .8rem;padding:.45rem 0;border-top:1px solid #eceef1}
ul.days li:first-child{border-top:0}
.day{min-width:7rem;font-weight:600}
.chips{display:flex;flex-wrap:wrap;gap:.3rem}
.chip{border-radius:999px;padding:.05rem .6rem;font-size:.85rem;background:#eef0f3;color:#1b1d22}
.chip[data-outcome=done],.chip[data-outcome=accepted]{background:#e2f2e8;color:#1e6b38}
.chip[data-outcome=declined],.chip[data-outcome=withdrawn],.chip[data-outcome=expired]{background:#eceef1;color:#3f4350}
.chip[data-outcome=failed]{background:#fbe6e6;color:#9b2626}
.none{color:#8a8d93;font-size:.9rem}
.warn{color:#9a3b00;font-size:.85rem}
.toggle{float:right;font-size:.85rem;font-weight:600;text-transform:none;letter-spacing:0}
a{color:#1c58d9}
@media (max-width:40rem){
main{padding:1rem .75rem 2rem}
h1{font-size:1.35rem}
.grid{grid-template-columns:minmax(0,1fr)}
.big{font-size:2rem}
}
</style></head>
<body>
<main id="admin">
<p class="kicker">MCP Server</p>
<h1>Status for admins</h1>
<p class="lede">MCP clients connect at <code id="mcp-url">{{.MCPURL}}</code>. Figures as of {{.Asof}} (UTC days).</p>
<div class="grid">
<section class="card wide" id="oauth" data-ok="{{.OAuth.OK}}" aria-labelledby="oauth-h">
<h2 id="oauth-h">Sign-in with OAuth</h2>
{{if .OAuth.OK}}<p class="state" data-ok="true">MCP clients sign in with Mattermost's OAuth here.<span>A person adds the URL above to their client and signs in in the browser; nothing to paste.</span></p>
{{else}}<p class="state" data-ok="false">MCP clients cannot sign in with OAuth here: {{.OAuth.Reason}}.<span>Until the settings below are on, people connect with a personal access token instead.</span></p>{{end}}
<ul class="steps">
{{range .OAuth.Steps}}<li data-setting="{{.Setting}}" data-on="{{.On}}"><span class="mark {{if .On}}on{{else}}off{{end}}" aria-label="{{if .On}}on{{else}}off{{end}}">{{if .On}}✓{{else}}✗{{end}}</span><span>{{.Setting}}{{if .Value}}: <code>{{.Value}}</code>{{else if not .On}}: off{{end}}</span><span class="where">{{.Where}}</span></li>
{{end}}</ul>
</section>
<section class="card" id="usage" aria-labelledby="usage-h">
<h2 id="usage-h">People using MCP</h2>
<p class="big" id="people-count">{{.Usage.People}}</p>
<p class="sub">{{if eq .Usage.People 1}}person{{else}}people{{end}} made a tool call in the last {{.Usage.Days}} days{{if .Usage.Uncounted}} (and {{.Usage.Uncounted}} uses past the daily bound, not counted){{end}}.</p>
{{if .Usage.Clients}}<ul class="clients" id="clients">
{{range .Usage.Clients}}<li><div class="client-row"><span class="client-name">{{.Name}}</span><span class="client-people">{{.People}}</span></div><div class="bar" style="width:{{pct .People $.MaxClient}}%"></div></li>
{{end}}</ul>{{else}}<p class="none">No MCP client was used in these days.</p>{{end}}
</section>
<section class="card" id="writes" data-days="{{.WriteDays}}" aria-labelledby="writes-h">
<h2 id="writes-h">Writes per day <a class="toggle" href="?days={{.Other}}">last {{.Other}} days</a></h2>
<p class="sub">Confirmed writes of the last {{.WriteDays}} days by outcome, newest first.</p>
<ul class="days">
{{range .Days}}<li data-day="{{.Day}}"><span class="day">{{.Label}}</span>{{if .Chips}}<span class="chips">{{range .Chips}}<span class="chip" data-outcome="{{.Outcome}}">{{.Count}} {{.Outcome}}</span>{{end}}</span>{{else}}<span class="none">none</span>{{end}}{{if .Dropped}}<span class="warn">{{.Dropped}} entries past the day's cap are only in Mattermost's audit log</span>{{end}}</li>
{{end}}</ul>
</section>
<section class="card wide" id="trail" aria-labelledby="trail-h">
<h2 id="trail-h">The audit trail</h2>
<p>Every confirmed write, change to a person's own view, presigned URL, upload handle and refused sign-in is kept for {{.Audit.RetentionDays}} days: who, which client, which tool, the ids and the outcome, never message text or file contents. Mattermost 10.10 and later also have each entry in their own audit log.</p>
<p>Read it with any of your Mattermost credentials (a personal access token too): <code>GET {{.Audit.API}}?user=&amp;tool=&amp;outcome=&amp;kind=&amp;since=&amp;until=&amp;page=&amp;per_page=</code>, or <a id="csv" href="api/v1/audit?format=csv">download the latest entries as CSV</a>. People read their own at <code>{{.Audit.API}}/mine</code>.</p>
</section>
</div>
</main>
</body></html>`))
