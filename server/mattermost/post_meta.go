package mattermost

import (
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

// rootFacts reads the thread roots' priorities, acknowledgements and
// threads (reply count, latest reply) in one query: through the plugin
// API's database driver every query, every row and closing the rows is a
// round trip to Mattermost (five at least for a query).
func rootFacts(db *sql.DB, driver string, ids []any, priority func(string, *model.PostPriority), ack func(*model.PostAcknowledgement), thread func(string, Thread)) error {
	p, err := placeholders(driver, len(ids))
	if err != nil {
		return err
	}
	in, args := strings.Join(p, ", "), ids
	if driver == driverMySQL {
		// "?" is positional; PostgreSQL's $n are named three times.
		args = slices.Concat(ids, ids, ids)
	}
	// A withdrawn acknowledgement keeps its row with AcknowledgedAt 0.
	q := fmt.Sprintf(`SELECT 0, PostId, Priority, RequestedAck, PersistentNotifications, '', 0, 0 FROM PostsPriority WHERE PostId IN (%[1]s)
UNION ALL
SELECT 1, PostId, NULL, NULL, NULL, UserId, AcknowledgedAt, 0 FROM PostAcknowledgements WHERE AcknowledgedAt > 0 AND PostId IN (%[1]s)
UNION ALL
SELECT 2, PostId, NULL, NULL, NULL, '', LastReplyAt, ReplyCount FROM Threads WHERE PostId IN (%[1]s)
ORDER BY 1, 7, 6`, in)
	err = queryRows(db, q, args, 8, func(scan func(...any) error) error {
		var kind int
		var id, user, level string
		var requested, persistent bool
		var at, n int64
		if err := scan(&kind, &id, &level, &requested, &persistent, &user, &at, &n); err != nil {
			return err
		}
		switch kind {
		case 0:
			priority(id, &model.PostPriority{PostId: id, Priority: model.NewPointer(level),
				RequestedAck: model.NewPointer(requested), PersistentNotifications: model.NewPointer(persistent)})
		case 1:
			ack(&model.PostAcknowledgement{PostId: id, UserId: user, AcknowledgedAt: at})
		default:
			thread(id, Thread{ReplyCount: n, LastReplyAt: at})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read post priority, acknowledgements and threads: %w", err)
	}
	return nil
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
