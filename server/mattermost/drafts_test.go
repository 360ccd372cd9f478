package mattermost

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin/plugintest"
	"github.com/stretchr/testify/mock"
)

// scheduleServer stands in for Mattermost's REST API: it answers
// POST /api/v4/posts/schedule with status and keeps what it was sent.
type scheduleServer struct {
	*httptest.Server
	calls atomic.Int32
	got   model.ScheduledPost
	auth  string
}

func newScheduleServer(t *testing.T, status int, body string) *scheduleServer {
	s := &scheduleServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.calls.Add(1)
		if r.Method != http.MethodPost || r.URL.Path != "/api/v4/posts/schedule" {
			http.NotFound(w, r)
			return
		}
		s.auth = r.Header.Get("Authorization")
		if err := json.NewDecoder(r.Body).Decode(&s.got); err != nil {
			t.Errorf("the scheduled post is not JSON: %v", err)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(s.Close)
	return s
}

// scheduleAPI is accessAPI with alice allowed to post in privateID, a site
// URL, and her session sid.
func scheduleAPI(t *testing.T, site string) *plugintest.API {
	api := accessAPI(t)
	cfg := &model.Config{}
	cfg.SetDefaults()
	cfg.ServiceSettings.SiteURL = model.NewPointer(site)
	api.On("GetConfig").Return(cfg).Maybe()
	api.On("HasPermissionToChannel", aliceID, privateID, mock.Anything).Return(true).Maybe()
	api.On("GetSession", "sid").Return(&model.Session{Id: "sid", UserId: aliceID, Token: "tok", ExpiresAt: model.GetMillis() + 3600_000}, nil).Maybe()
	return api
}

func TestAScheduledPostGoesToMattermostAsThePersonWithItsTimeAndMarks(t *testing.T) {
	srv := newScheduleServer(t, http.StatusCreated, `{"id":"sp1"}`)
	c := NewGateway(scheduleAPI(t, srv.URL), nil).AsSession(aliceID, "sid")
	at := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	id, err := c.SchedulePost(context.Background(), ScheduledPost{ChannelID: privateID, Message: "standup notes", Props: map[string]any{"from_mcp": true}, At: at})
	if err != nil || id != "sp1" {
		t.Fatalf("got %q, %v", id, err)
	}
	g := &srv.got
	if !strings.EqualFold(srv.auth, "Bearer tok") || g.ChannelId != privateID || g.UserId != aliceID || g.Message != "standup notes" || g.ScheduledAt != at.UnixMilli() || g.GetProps()["from_mcp"] != true {
		t.Fatalf("Mattermost was sent %+v with %q", g, srv.auth)
	}
}

func TestAScheduledPostIsRefusedBeforeMattermostIsAskedWhereThePersonCannotPostOrHasNoSession(t *testing.T) {
	srv := newScheduleServer(t, http.StatusCreated, `{"id":"sp1"}`)
	gw := NewGateway(scheduleAPI(t, srv.URL), nil)
	at := time.Now().Add(time.Hour)
	if _, err := gw.AsSession(aliceID, "sid").SchedulePost(context.Background(), ScheduledPost{ChannelID: model.NewId(), Message: "x", At: at}); !errors.Is(err, ErrNotFound) {
		t.Errorf("a channel alice cannot read: %v", err)
	}
	if _, err := gw.As(aliceID).SchedulePost(context.Background(), ScheduledPost{ChannelID: privateID, Message: "x", At: at}); !errors.Is(err, ErrNoSession) {
		t.Errorf("without a session: %v", err)
	}
	if n := srv.calls.Load(); n != 0 {
		t.Fatalf("Mattermost was asked %d times", n)
	}
}

func TestMattermostRefusingScheduledPostsForItsLicenceReadsAsTurnedOff(t *testing.T) {
	for _, id := range []string{"api.scheduled_posts.license_error", "api.scheduled_posts.feature_disabled"} {
		srv := newScheduleServer(t, http.StatusBadRequest, `{"id":"`+id+`","message":"no","status_code":400}`)
		c := NewGateway(scheduleAPI(t, srv.URL), nil).AsSession(aliceID, "sid")
		if _, err := c.SchedulePost(context.Background(), ScheduledPost{ChannelID: privateID, Message: "x", At: time.Now().Add(time.Hour)}); !errors.Is(err, ErrTurnedOff) {
			t.Errorf("%s: %v", id, err)
		}
	}
}
