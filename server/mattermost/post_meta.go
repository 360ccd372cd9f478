package mattermost

import (
	"cmp"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/shared/markdown"
)

// The plugin API hands posts over without their metadata (Post.ForPlugin
// drops it), so what Mattermost's REST API adds to a post for its clients
// (priority, acknowledgements, the stored link preview) is read here from
// the same tables Mattermost reads it from, under the same settings.

// PostMeta is what Mattermost shows with a post beside its props.
type PostMeta struct {
	// Priority is nil when the post has none.
	Priority *model.PostPriority
	// Acks are the acknowledgements, oldest first.
	Acks []*model.PostAcknowledgement
	// Preview is the link preview stored for the post's first link.
	Preview *LinkPreview
}

// LinkPreview is the OpenGraph data Mattermost stored for a link.
type LinkPreview struct {
	URL, Title, Description, SiteName, Image string
}

// PostMeta is the metadata of posts the caller has already read through
// this Caller, by post id; posts without any are left out.
func (c *Caller) PostMeta(posts []*model.Post) (map[string]*PostMeta, error) {
	out := map[string]*PostMeta{}
	if len(posts) == 0 {
		return out, nil
	}
	of := func(id string) *PostMeta {
		if out[id] == nil {
			out[id] = &PostMeta{}
		}
		return out[id]
	}
	cfg := c.g.config()
	if cfg == nil {
		return out, nil
	}
	db, err := c.g.api.Store.GetReplicaDB()
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	driver := c.g.driverName()
	// Mattermost keeps priority for thread roots only, and shows neither
	// it nor acknowledgements when message priority is off.
	if Setting(cfg.ServiceSettings.PostPriority) {
		var roots []any
		for _, p := range posts {
			if p.RootId == "" {
				roots = append(roots, p.Id)
			}
		}
		if len(roots) > 0 {
			threads := map[string]Thread{}
			if err := rootFacts(db, driver, roots, func(id string, pr *model.PostPriority) { of(id).Priority = pr },
				func(a *model.PostAcknowledgement) { m := of(a.PostId); m.Acks = append(m.Acks, a) },
				func(id string, t Thread) { threads[id] = t }); err != nil {
				return nil, err
			}
			c.keepThreads(roots, threads)
		}
	}
	if Setting(cfg.ServiceSettings.EnableLinkPreviews) {
		site := ""
		if cfg.ServiceSettings.SiteURL != nil {
			site = *cfg.ServiceSettings.SiteURL
		}
		restricted := restrictedDomains(cfg)
		byHash := map[int64][]string{}
		var hashes []any
		for _, p := range posts {
			link := previewLink(p, site, restricted)
			if link == "" {
				continue
			}
			h := model.GenerateLinkMetadataHash(link, model.FloorToNearestHour(p.CreateAt))
			if byHash[h] == nil {
				hashes = append(hashes, h)
			}
			byHash[h] = append(byHash[h], p.Id)
		}
		if len(hashes) > 0 {
			err := previews(db, driver, hashes, func(h int64, pv *LinkPreview) {
				for _, id := range byHash[h] {
					of(id).Preview = pv
				}
			})
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// UsernameOverridesShown is ServiceSettings.EnablePostUsernameOverride:
// whether Mattermost shows the name an integration posted under.
func (c *Caller) UsernameOverridesShown() bool {
	return c.g.setting(func(cfg *model.Config) *bool { return cfg.ServiceSettings.EnablePostUsernameOverride })
}

// permalinkPath is what follows the site URL in a permalink, as Mattermost
// matches it (such a link previews the post, not a page).
var permalinkPath = regexp.MustCompile(`^[0-9a-z_-]{1,64}/pl/[a-z0-9]{26}$`)

// previewLink is the link Mattermost previews under a post: the first
// autolinked URL of the message, unless the post carries message
// attachments (they take the preview's place), the link is a permalink,
// or its domain is one the admin keeps from previews.
func previewLink(p *model.Post, siteURL string, restricted []string) string {
	if _, ok := p.GetProps()[model.PostPropsAttachments]; ok {
		return ""
	}
	if !mayAutolink(p.Message) {
		return ""
	}
	first := ""
	markdown.Inspect(p.Message, func(node any) bool {
		if a, ok := node.(*markdown.Autolink); ok && first == "" {
			if link := a.Destination(); previewAllowed(link, restricted) {
				first = link
			}
		}
		return first == ""
	})
	if path, ok := strings.CutPrefix(strings.TrimSpace(first), siteURL); ok && siteURL != "" && permalinkPath.MatchString(strings.TrimPrefix(path, "/")) {
		return ""
	}
	return first
}

// mayAutolink reports whether Mattermost's markdown could find an autolink
// in a message: it links only a scheme followed by "://" or a word starting
// "www" (lowercase, wwwAutoLinkRegex), so a message with neither is not
// parsed at all (parsing every post of a page was 2% of the plugin's
// processor under load).
func mayAutolink(message string) bool {
	return strings.Contains(message, "://") || strings.Contains(message, "www")
}

func restrictedDomains(cfg *model.Config) []string {
	if cfg.ServiceSettings.RestrictLinkPreviews == nil {
		return nil
	}
	d := strings.NewReplacer("@", " ", ",", " ").Replace(*cfg.ServiceSettings.RestrictLinkPreviews)
	return strings.Fields(strings.ToLower(d))
}

func previewAllowed(link string, restricted []string) bool {
	if len(restricted) == 0 {
		return true
	}
	u, err := url.Parse(link)
	if err != nil {
		return false // as Mattermost: a link it cannot parse is not previewed
	}
	host := strings.ToLower(u.Hostname())
	for _, d := range restricted {
		if strings.Contains(host, d) {
			return false
		}
	}
	return true
}

// inQuery is query with its IN list of n placeholders in place of "%s".
func inQuery(driver, query string, n int) (string, error) {
	p, err := placeholders(driver, n)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(query, strings.Join(p, ", ")), nil
}

// rootFacts reads the thread roots' priorities, acknowledgements and
// threads (reply count, latest reply) in one query. Through the plugin API's
// database driver the query, every row and closing the rows is each a round
// trip to Mattermost, so the query answers one row, the facts aggregated
// into a JSON array: three round trips however many roots have replies or
// acknowledgements.
func rootFacts(db *sql.DB, driver string, ids []any, priority func(string, *model.PostPriority), ack func(*model.PostAcknowledgement), thread func(string, Thread)) error {
	p, err := placeholders(driver, len(ids))
	if err != nil {
		return err
	}
	in, args := strings.Join(p, ", "), ids
	agg := `COALESCE(json_agg(json_build_array(k, id, lvl, req, per, usr, at, n)), '[]')::text`
	if driver == driverMySQL {
		// "?" is positional; PostgreSQL's $n are named three times.
		args = slices.Concat(ids, ids, ids)
		agg = `COALESCE(JSON_ARRAYAGG(JSON_ARRAY(k, id, lvl, req, per, usr, at, n)), JSON_ARRAY())`
	}
	// A withdrawn acknowledgement keeps its row with AcknowledgedAt 0.
	q := fmt.Sprintf(`SELECT %[2]s FROM (
SELECT 0 AS k, PostId AS id, Priority AS lvl, RequestedAck AS req, PersistentNotifications AS per, '' AS usr, 0 AS at, 0 AS n FROM PostsPriority WHERE PostId IN (%[1]s)
UNION ALL
SELECT 1, PostId, NULL, NULL, NULL, UserId, AcknowledgedAt, 0 FROM PostAcknowledgements WHERE AcknowledgedAt > 0 AND PostId IN (%[1]s)
UNION ALL
SELECT 2, PostId, NULL, NULL, NULL, '', LastReplyAt, ReplyCount FROM Threads WHERE PostId IN (%[1]s)
) AS facts`, in, agg)
	var facts []byte
	err = queryOneRow(db, q, args, 1, func(scan func(...any) error) error { return scan(&facts) })
	if err != nil {
		return fmt.Errorf("read post priority, acknowledgements and threads: %w", err)
	}
	rows, err := rootFactRows(facts)
	if err != nil {
		return fmt.Errorf("read post priority, acknowledgements and threads: %w", err)
	}
	for _, r := range rows {
		switch r.kind {
		case 0:
			priority(r.id, &model.PostPriority{PostId: r.id, Priority: model.NewPointer(r.level),
				RequestedAck: model.NewPointer(r.requested), PersistentNotifications: model.NewPointer(r.persistent)})
		case 1:
			ack(&model.PostAcknowledgement{PostId: r.id, UserId: r.user, AcknowledgedAt: r.at})
		default:
			thread(r.id, Thread{ReplyCount: r.n, LastReplyAt: r.at})
		}
	}
	return nil
}

// rootFact is one row of rootFacts: kind 0 a priority, 1 an
// acknowledgement, 2 a thread.
type rootFact struct {
	kind                  int
	id, level, user       string
	requested, persistent bool
	at, n                 int64
}

// rootFactRows decodes rootFacts' JSON array of rows, each an array of
// kind, post, priority, requested ack, persistent, user, time and count
// (NULL where the kind has none; MySQL writes booleans as 0 and 1), in the
// order of kind, then time, then user: acknowledgements oldest first.
func rootFactRows(facts []byte) ([]rootFact, error) {
	var raw [][8]json.RawMessage
	if err := json.Unmarshal(facts, &raw); err != nil {
		return nil, err
	}
	out := make([]rootFact, len(raw))
	for i, r := range raw {
		f := &out[i]
		for j, dest := range []any{&f.kind, &f.id, &f.level, nil, nil, &f.user, &f.at, &f.n} {
			if dest == nil || string(r[j]) == "null" {
				continue
			}
			if err := json.Unmarshal(r[j], dest); err != nil {
				return nil, fmt.Errorf("column %d of row %d: %w", j+1, i+1, err)
			}
		}
		f.requested, f.persistent = jsonTrue(r[3]), jsonTrue(r[4])
	}
	slices.SortStableFunc(out, func(a, b rootFact) int {
		return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.at, b.at), strings.Compare(a.user, b.user))
	})
	return out, nil
}

// jsonTrue is a JSON boolean, or MySQL's 1 for one.
func jsonTrue(v json.RawMessage) bool { return string(v) == "true" || string(v) == "1" }

// openGraph is the part of a stored OpenGraph record a preview shows.
type openGraph struct {
	URL         string `json:"url"`
	Title       string `json:"title"`
	Description string `json:"description"`
	SiteName    string `json:"site_name"`
	Images      []struct {
		URL       string `json:"url"`
		SecureURL string `json:"secure_url"`
	} `json:"images"`
}

func previews(db *sql.DB, driver string, hashes []any, found func(int64, *LinkPreview)) error {
	q, err := inQuery(driver, "SELECT Hash, URL, Type, Data FROM LinkMetadata WHERE Hash IN (%s)", len(hashes))
	if err != nil {
		return err
	}
	err = queryRows(db, q, hashes, 4, func(scan func(...any) error) error {
		var h int64
		var url, typ string
		var data []byte
		if err := scan(&h, &url, &typ, &data); err != nil {
			return err
		}
		// "image" links show as the image itself, "none" as nothing.
		if typ != string(model.LinkMetadataTypeOpengraph) {
			return nil
		}
		var og openGraph
		if json.Unmarshal(data, &og) != nil || (og.Title == "" && og.Description == "") {
			return nil
		}
		pv := &LinkPreview{URL: url, Title: og.Title, Description: og.Description, SiteName: og.SiteName}
		if len(og.Images) > 0 {
			pv.Image = og.Images[0].SecureURL
			if pv.Image == "" {
				pv.Image = og.Images[0].URL
			}
		}
		found(h, pv)
		return nil
	})
	if err != nil {
		return fmt.Errorf("read link previews: %w", err)
	}
	return nil
}
