package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/filerequest"
)

// WaitingFileRequest polls the person's file requests in the KV store until
// one for purpose waits, as the person would open its page from the link
// the call gives, and answers its id.
func (s *Server) WaitingFileRequest(ctx context.Context, userID, purpose string, within time.Duration) (string, error) {
	r, err := s.WaitingFileRequestOf(ctx, userID, purpose, within)
	return r.ID, err
}

// WaitingFileRequestOf is WaitingFileRequest answering the whole request as
// the store keeps it (its drop key only as a hash: a view is handed its
// drop URL in the answer that shows it).
func (s *Server) WaitingFileRequestOf(ctx context.Context, userID, purpose string, within time.Duration) (filerequest.Request, error) {
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		raw, err := s.KVValue(ctx, "fr_"+userID)
		if err != nil {
			return filerequest.Request{}, err
		}
		var rec struct{ Requests []filerequest.Request }
		if raw != nil && json.Unmarshal(raw, &rec) == nil {
			for _, r := range rec.Requests {
				if r.State == filerequest.StateWaiting && r.Purpose == purpose {
					return r, nil
				}
			}
		}
	}
	return filerequest.Request{}, fmt.Errorf("no file request of %s for %q waits", userID, purpose)
}

// GiveFile uploads data to a file request's page as the page's script does,
// from the person's own browser session web: its CSRF cookie sent back in
// X-CSRF-Token, the name percent-encoded in X-File-Name. It answers the
// status and the page's JSON answer.
func GiveFile(web *http.Client, page, name string, data []byte) (int, filerequest.Outcome, error) {
	u, err := url.Parse(page)
	if err != nil {
		return 0, filerequest.Outcome{}, err
	}
	csrf := ""
	if web.Jar != nil {
		for _, c := range web.Jar.Cookies(u) {
			if c.Name == "MMCSRF" {
				csrf = c.Value
			}
		}
	}
	req, _ := http.NewRequest(http.MethodPost, page, bytes.NewReader(data))
	req.Header.Set("X-CSRF-Token", csrf)
	req.Header.Set("X-File-Name", url.PathEscape(name))
	resp, err := web.Do(req)
	if err != nil {
		return 0, filerequest.Outcome{}, err
	}
	defer resp.Body.Close()
	var o filerequest.Outcome
	_ = json.NewDecoder(resp.Body).Decode(&o)
	return resp.StatusCode, o, nil
}
