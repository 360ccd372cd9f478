// Package config holds the plugin's System Console settings: how they are
// parsed from Mattermost's configuration, validated, and swapped atomically so
// every request sees one consistent value.
package config

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Who answers the question that comes before a write.
const (
	// ConfirmClientThenMattermost asks through the MCP client (elicitation)
	// when the client supports it, otherwise in Mattermost.
	ConfirmClientThenMattermost = "client_then_mattermost"
	// ConfirmMattermost always asks in Mattermost (webapp modal or the
	// plugin's confirmation page), whatever the client supports.
	ConfirmMattermost = "mattermost"
	// ConfirmClientApproval asks nothing: the client's own tool approval is
	// the only check.
	ConfirmClientApproval = "client_approval"
)

const (
	// DefaultMaxFileSizeMiB is large enough for ordinary office files and
	// photos while keeping one tool call's memory modest.
	DefaultMaxFileSizeMiB = 50
	// LimitMaxFileSizeMiB bounds what an admin may set: the tools hold a file
	// in memory while converting it, so this caps one call's footprint.
	LimitMaxFileSizeMiB = 1024

	// DefaultWorkspaceQuotaMiB holds a few large transfers per person; the
	// workspace is a 24-hour transfer buffer, not a document store.
	DefaultWorkspaceQuotaMiB = 200
	// LimitWorkspaceQuotaMiB bounds what the KV store may be asked to hold
	// for one person (the bytes live in the database).
	LimitWorkspaceQuotaMiB = 10240
	// DefaultMaxWorkspaceFileMiB matches the largest file the tools read.
	DefaultMaxWorkspaceFileMiB = 50
	// LimitMaxWorkspaceFileMiB bounds one file: a redemption for a post holds
	// the whole file in memory, times the redemption slots.
	LimitMaxWorkspaceFileMiB = 1024

	// DefaultConversionMemoryMiB lets a few ordinary reads (photos, office
	// files, text) run at once while a hostile image cannot take the host:
	// small next to the 4-8 GiB a Mattermost server usually has.
	DefaultConversionMemoryMiB = 256
	// MinConversionMemoryMiB: reading a 12-megapixel phone photo (fetching,
	// decoding, scaling and sending it) needs about 92 MiB, most of it the
	// decoded pixels; less than this, with room for a text read beside it,
	// and ordinary photos could hardly ever be read.
	MinConversionMemoryMiB = 128
	// LimitConversionMemoryMiB: 16 GiB is more than a Mattermost host gives
	// one plugin; a larger number is a typo, not a plan.
	LimitConversionMemoryMiB = 16384
)

// Configuration is one immutable snapshot of the settings. Never modify a
// value obtained from Store.Get; build a new one and Store.Set it.
type Configuration struct {
	// AllowWrites offers the tools that change Mattermost (post, react...).
	AllowWrites bool
	// WriteConfirmation says who confirms a write; one of the Confirm* values.
	WriteConfirmation string
	// MaxFileSizeMiB is the largest file the tools read; larger files are
	// described from their metadata and never fetched.
	MaxFileSizeMiB int
	// WorkspaceQuotaMiB bounds all of one person's workspace files together.
	WorkspaceQuotaMiB int
	// MaxWorkspaceFileMiB bounds one workspace file (uploads, writes, saved
	// attachments).
	MaxWorkspaceFileMiB int
	// NotifyByDM has the plugin's bot send the person a direct message when
	// a write starts waiting for them in Mattermost, so it reaches them on
	// every device through their own notification settings.
	NotifyByDM bool
	// ConversionMemoryMiB bounds the memory of all file reading of the
	// process together (fetching, decoding, converting, copying): a read
	// takes its estimated cost before it starts and waits its turn when it is
	// all taken; a file that alone would need more is described, not read.
	ConversionMemoryMiB int
	// AllowedOrigins are the web origins besides the site's own whose pages
	// may call the MCP endpoint and the workspace API (browser-based MCP
	// clients): normalized by ParseOrigins and separated by spaces, text so
	// that a Configuration stays a comparable value.
	AllowedOrigins string

	// Toolsets are the toolsets the admin left on; a tool of a toolset
	// that is off is neither listed nor callable.
	Toolsets Toolset
	// ExcludedTools are single tools the admin left out, by name,
	// separated by spaces.
	ExcludedTools string
	// ConnectAccess says who may connect an MCP client; one of the
	// Connect* values.
	ConnectAccess string
	// ConnectTeams and ConnectGroups are the teams and groups (names or
	// ids, lower case, separated by spaces) whose members may connect. An
	// entry in the form of an id is an id, any other a name
	// (admission.IsID): names are kept as the admin wrote them.
	ConnectTeams  string
	ConnectGroups string
	// AllowGuests lets guest accounts connect (when they are otherwise
	// allowed).
	AllowGuests bool
	// MaxCallsPerMinute bounds one person's tool calls a minute on each
	// server of a cluster.
	MaxCallsPerMinute int
	// AuditRetentionDays is how long the plugin's own audit trail keeps
	// an entry.
	AuditRetentionDays int

	// Server is what this Mattermost has that not every server has (by its
	// licence or its settings), read by the plugin on every list and call;
	// it is no plugin setting.
	Server Feature
}

// Feature is something of Mattermost's that only some servers have, which a
// tool may need.
type Feature uint8

const (
	// ScheduledPosts: the server has a licence (Mattermost refuses
	// scheduled posts without one) and ServiceSettings.ScheduledPosts on.
	ScheduledPosts Feature = 1 << iota
)

// Lacking says, for the model, what a server without f lacks.
func (f Feature) Lacking() string {
	if f&ScheduledPosts != 0 {
		return "scheduled posts, which need a Mattermost licence and ServiceSettings.ScheduledPosts on"
	}
	return "a feature of Mattermost it does not have"
}

// Has reports whether the server has every feature of f.
func (c Configuration) Has(f Feature) bool { return c.Server&f == f }

// Defaults is what a freshly installed plugin runs with: read-only.
func Defaults() Configuration {
	return Configuration{
		AllowWrites:       false,
		WriteConfirmation: ConfirmClientThenMattermost,
		MaxFileSizeMiB:    DefaultMaxFileSizeMiB,

		WorkspaceQuotaMiB:   DefaultWorkspaceQuotaMiB,
		MaxWorkspaceFileMiB: DefaultMaxWorkspaceFileMiB,
		NotifyByDM:          true,
		ConversionMemoryMiB: DefaultConversionMemoryMiB,

		Toolsets:           AllToolsets,
		ConnectAccess:      ConnectEveryone,
		AllowGuests:        true,
		MaxCallsPerMinute:  DefaultMaxCallsPerMinute,
		AuditRetentionDays: DefaultAuditRetentionDays,
	}
}

// MaxFileSizeBytes is MaxFileSizeMiB in bytes.
func (c Configuration) MaxFileSizeBytes() int64 {
	return int64(c.MaxFileSizeMiB) << 20
}

// WorkspaceQuotaBytes is WorkspaceQuotaMiB in bytes.
func (c Configuration) WorkspaceQuotaBytes() int64 { return int64(c.WorkspaceQuotaMiB) << 20 }

// MaxWorkspaceFileBytes is MaxWorkspaceFileMiB in bytes.
func (c Configuration) MaxWorkspaceFileBytes() int64 { return int64(c.MaxWorkspaceFileMiB) << 20 }

// ConversionMemoryBytes is ConversionMemoryMiB in bytes.
func (c Configuration) ConversionMemoryBytes() int64 { return int64(c.ConversionMemoryMiB) << 20 }

// Validate reports the first setting an admin must fix, worded for the
// System Console.
func (c Configuration) Validate() error {
	switch c.WriteConfirmation {
	case ConfirmClientThenMattermost, ConfirmMattermost, ConfirmClientApproval:
	default:
		return fmt.Errorf("MCP Server: \"Who confirms a write\" must be one of %q, %q or %q, not %q",
			ConfirmClientThenMattermost, ConfirmMattermost, ConfirmClientApproval, c.WriteConfirmation)
	}
	if c.MaxFileSizeMiB < 1 || c.MaxFileSizeMiB > LimitMaxFileSizeMiB {
		return fmt.Errorf("MCP Server: \"Largest file the tools read (MiB)\" must be a whole number from 1 to %d, not %d",
			LimitMaxFileSizeMiB, c.MaxFileSizeMiB)
	}
	if c.WorkspaceQuotaMiB < 1 || c.WorkspaceQuotaMiB > LimitWorkspaceQuotaMiB {
		return fmt.Errorf("MCP Server: \"Workspace quota per person (MiB)\" must be a whole number from 1 to %d, not %d",
			LimitWorkspaceQuotaMiB, c.WorkspaceQuotaMiB)
	}
	if c.MaxWorkspaceFileMiB < 1 || c.MaxWorkspaceFileMiB > LimitMaxWorkspaceFileMiB {
		return fmt.Errorf("MCP Server: \"Largest workspace file (MiB)\" must be a whole number from 1 to %d, not %d",
			LimitMaxWorkspaceFileMiB, c.MaxWorkspaceFileMiB)
	}
	if c.ConversionMemoryMiB < MinConversionMemoryMiB || c.ConversionMemoryMiB > LimitConversionMemoryMiB {
		return fmt.Errorf("MCP Server: \"Memory for reading files (MiB)\" must be a whole number from %d to %d, not %d",
			MinConversionMemoryMiB, LimitConversionMemoryMiB, c.ConversionMemoryMiB)
	}
	if c.MaxWorkspaceFileMiB > c.WorkspaceQuotaMiB {
		return fmt.Errorf("MCP Server: \"Largest workspace file (MiB)\" (%d) cannot be more than \"Workspace quota per person (MiB)\" (%d): raise the quota or lower the largest file",
			c.MaxWorkspaceFileMiB, c.WorkspaceQuotaMiB)
	}
	return c.validateGovernance()
}

// Parse reads the plugin's section of Mattermost's configuration
// (PluginSettings.Plugins, under the plugin's id). Keys are matched case-insensitively
// because Mattermost stores them lower-cased; absent keys keep their defaults.
func Parse(settings map[string]any) (Configuration, error) {
	c := Defaults()
	for key, raw := range settings {
		var err error
		switch strings.ToLower(key) {
		case "allowwrites":
			c.AllowWrites, err = asBool(raw)
		case "writeconfirmation":
			c.WriteConfirmation, err = asString(raw)
		case "maxfilesizemib":
			c.MaxFileSizeMiB, err = asInt(raw)
		case "workspacequotamib":
			c.WorkspaceQuotaMiB, err = asInt(raw)
		case "maxworkspacefilemib":
			c.MaxWorkspaceFileMiB, err = asInt(raw)
		case "conversionmemorymib":
			// A setting not saved yet since an upgrade keeps its default.
			if raw != nil {
				c.ConversionMemoryMiB, err = asInt(raw)
			}
		case "allowedorigins":
			var text string
			if text, err = asString(raw); err == nil {
				var origins []string
				origins, err = ParseOrigins(text)
				c.AllowedOrigins = strings.Join(origins, " ")
			}
		case "notifybydm":
			// On unless the admin turned it off: an upgrade that brings the
			// setting must not silence it.
			if raw != nil {
				c.NotifyByDM, err = asBool(raw)
			}
		case "excludedtools":
			c.ExcludedTools, err = parseNames(raw, MaxExcludedTools, "Tools to leave out", "tools")
		case "connectaccess":
			if raw != nil {
				c.ConnectAccess, err = asString(raw)
			}
		case "connectteams":
			c.ConnectTeams, err = parseNames(raw, MaxConnectListed, "Teams whose members may connect", "teams")
		case "connectgroups":
			c.ConnectGroups, err = parseNames(raw, MaxConnectListed, "Groups whose members may connect", "groups")
		case "allowguests":
			if raw != nil {
				c.AllowGuests, err = asBool(raw)
			}
		case "maxcallsperminute":
			if raw != nil {
				c.MaxCallsPerMinute, err = asInt(raw)
			}
		case "auditretentiondays":
			if raw != nil {
				c.AuditRetentionDays, err = asInt(raw)
			}
		default:
			var known bool
			if known, err = c.parseToolset(strings.ToLower(key), raw); !known {
				continue // settings of other versions of the plugin are ignored
			}
		}
		if err != nil {
			return c, fmt.Errorf("MCP Server: setting %s: %w", key, err)
		}
	}
	if err := c.Validate(); err != nil {
		return c, err
	}
	return c, nil
}

// AllowsOrigin reports whether the admin listed origin (as normalized by
// NormalizeOrigin).
func (c Configuration) AllowsOrigin(origin string) bool {
	return slices.Contains(strings.Fields(c.AllowedOrigins), origin)
}

// MaxAllowedOrigins bounds the admin's list of origins: each is compared on
// every request that carries an Origin, and a deployment has a handful of
// browser-based clients, not hundreds.
const MaxAllowedOrigins = 50

// ParseOrigins reads the admin's list of origins, separated by commas,
// spaces or new lines, each scheme://host[:port] with an http or https
// scheme and nothing after the host, and returns them normalized as a
// browser sends them in Origin (lower case, no default port).
func ParseOrigins(text string) ([]string, error) {
	fields := strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	if len(fields) > MaxAllowedOrigins {
		return nil, fmt.Errorf("MCP Server: \"Allowed origins for browser-based MCP clients\" lists %d origins; at most %d", len(fields), MaxAllowedOrigins)
	}
	var out []string
	for _, f := range fields {
		o, ok := NormalizeOrigin(f)
		if !ok {
			return nil, fmt.Errorf("MCP Server: \"Allowed origins for browser-based MCP clients\": %q is not an origin; write each as scheme://host or scheme://host:port (http or https, no path), such as https://app.example.com, separated by commas or new lines", f)
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out, nil
}

// NormalizeOrigin is an origin as browsers send it in the Origin header:
// scheme and host in lower case, without the scheme's default port. It
// refuses anything with user info, a path (other than "/"), a query or a
// fragment, and schemes other than http and https.
func NormalizeOrigin(s string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" || (u.Path != "" && u.Path != "/") {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if host == "" || strings.ContainsAny(host, "*") {
		return "", false
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // IPv6
	}
	if port != "" && !(scheme == "http" && port == "80") && !(scheme == "https" && port == "443") {
		host += ":" + port
	}
	return scheme + "://" + host, true
}

func asBool(v any) (bool, error) {
	switch t := v.(type) {
	case bool:
		return t, nil
	case string:
		b, err := strconv.ParseBool(strings.TrimSpace(t))
		if err != nil {
			return false, fmt.Errorf("%q is not true or false", t)
		}
		return b, nil
	case nil:
		return false, nil
	}
	return false, fmt.Errorf("%v is not true or false", v)
}

func asString(v any) (string, error) {
	switch t := v.(type) {
	case string:
		return strings.TrimSpace(t), nil
	case nil:
		return "", nil
	}
	return "", fmt.Errorf("%v is not text", v)
}

// asInt accepts what the System Console and config.json produce for a number
// setting: a JSON number, or the text the admin typed.
func asInt(v any) (int, error) {
	switch t := v.(type) {
	case float64:
		if t != float64(int(t)) {
			return 0, fmt.Errorf("%v is not a whole number", t)
		}
		return int(t), nil
	case int:
		return t, nil
	case int64:
		return int(t), nil
	case json.Number:
		n, err := strconv.Atoi(t.String())
		if err != nil {
			return 0, fmt.Errorf("%q is not a whole number", t.String())
		}
		return n, nil
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(t))
		if err != nil {
			return 0, fmt.Errorf("%q is not a whole number", t)
		}
		return n, nil
	}
	return 0, fmt.Errorf("%v is not a whole number", v)
}

// Store holds the current Configuration. Readers get a copy; writers replace
// the whole value (clone on write), so no reader ever sees a half update.
type Store struct {
	mu      sync.RWMutex
	current Configuration
}

// NewStore starts with the defaults.
func NewStore() *Store {
	return &Store{current: Defaults()}
}

// Get returns a copy of the current configuration.
func (s *Store) Get() Configuration {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.current
}

// Set replaces the configuration.
func (s *Store) Set(c Configuration) {
	s.mu.Lock()
	s.current = c
	s.mu.Unlock()
}
