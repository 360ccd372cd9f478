package mattermost

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
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
			if err := priorities(db, driver, roots, func(id string, pr *model.PostPriority) { of(id).Priority = pr }); err != nil {
				return nil, err
			}
			if err := acknowledgements(db, driver, roots, func(a *model.PostAcknowledgement) { m := of(a.PostId); m.Acks = append(m.Acks, a) }); err != nil {
				return nil, err
			}
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

func priorities(db *sql.DB, driver string, ids []any, found func(string, *model.PostPriority)) error {
	q, err := inQuery(driver, "SELECT PostId, Priority, RequestedAck, PersistentNotifications FROM PostsPriority WHERE PostId IN (%s)", len(ids))
	if err != nil {
		return err
	}
	rows, err := db.Query(q, ids...)
	if err != nil {
		return fmt.Errorf("read post priority: %w", err)
	}
	defer closeRows(rows)
	for rows.Next() {
		var id string
		var level sql.NullString
		var ack, persistent sql.NullBool
		if err := rows.Scan(&id, &level, &ack, &persistent); err != nil {
			return fmt.Errorf("read post priority: %w", err)
		}
		found(id, &model.PostPriority{PostId: id, Priority: model.NewPointer(level.String),
			RequestedAck: model.NewPointer(ack.Bool), PersistentNotifications: model.NewPointer(persistent.Bool)})
	}
	return rows.Err()
}

func acknowledgements(db *sql.DB, driver string, ids []any, found func(*model.PostAcknowledgement)) error {
	// A withdrawn acknowledgement keeps its row with AcknowledgedAt 0.
	q, err := inQuery(driver, "SELECT PostId, UserId, AcknowledgedAt FROM PostAcknowledgements WHERE AcknowledgedAt > 0 AND PostId IN (%s) ORDER BY AcknowledgedAt, UserId", len(ids))
	if err != nil {
		return err
	}
	rows, err := db.Query(q, ids...)
	if err != nil {
		return fmt.Errorf("read acknowledgements: %w", err)
	}
	defer closeRows(rows)
	for rows.Next() {
		var a model.PostAcknowledgement
		if err := rows.Scan(&a.PostId, &a.UserId, &a.AcknowledgedAt); err != nil {
			return fmt.Errorf("read acknowledgements: %w", err)
		}
		found(&a)
	}
	return rows.Err()
}

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
	rows, err := db.Query(q, hashes...)
	if err != nil {
		return fmt.Errorf("read link previews: %w", err)
	}
	defer closeRows(rows)
	for rows.Next() {
		var h int64
		var url, typ string
		var data []byte
		if err := rows.Scan(&h, &url, &typ, &data); err != nil {
			return fmt.Errorf("read link previews: %w", err)
		}
		// "image" links show as the image itself, "none" as nothing.
		if typ != string(model.LinkMetadataTypeOpengraph) {
			continue
		}
		var og openGraph
		if json.Unmarshal(data, &og) != nil || (og.Title == "" && og.Description == "") {
			continue
		}
		pv := &LinkPreview{URL: url, Title: og.Title, Description: og.Description, SiteName: og.SiteName}
		if len(og.Images) > 0 {
			pv.Image = og.Images[0].SecureURL
			if pv.Image == "" {
				pv.Image = og.Images[0].URL
			}
		}
		found(h, pv)
	}
	return rows.Err()
}
