package audit

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
)

const (
	adminID = "aaaaaaaaaaaaaaaaaaaaaaaaaa"
	aliceID = "alicealicealicealicealicea"
	bobID   = "bobbobbobbobbobbobbobbobbo"
)

func testRoutes(t *testing.T) *mux.Router {
	t.Helper()
	s := NewStore(kvtest.New())
	appendAll(t, s,
		ev(day0, aliceID, "create_post", OutcomeAsked),
		ev(day0.Add(time.Millisecond), bobID, "add_reaction", OutcomeDeclined),
		Event{At: day0.Add(2 * time.Millisecond), Kind: KindWrite, UserID: aliceID, ClientName: "=HYPERLINK(\"http://x\")", Tool: "create_post", Outcome: OutcomeDone},
	)
	r := mux.NewRouter()
	(&Routes{Store: s, Log: &memLog{}, IsAdmin: func(id string) bool { return id == adminID },
		UserID: func(name string) (string, error) {
			if name == "bob" {
				return bobID, nil
			}
			return "", nil
		}}).Register(r)
	return r
}

func get(r http.Handler, as, url string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, url, nil)
	if as != "" {
		req.Header.Set("Mattermost-User-Id", as)
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	return w
}

func entries(t *testing.T, w *httptest.ResponseRecorder) []Event {
	t.Helper()
	var p Page
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	return p.Entries
}

func TestOnlyASystemAdminReadsEveryonesEntries(t *testing.T) {
	r := testRoutes(t)
	if w := get(r, adminID, APIPath); w.Code != http.StatusOK || len(entries(t, w)) != 3 {
		t.Fatalf("admin: %d %s", w.Code, w.Body)
	}
	w := get(r, aliceID, APIPath)
	if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), MinePath) {
		t.Fatalf("a person: %d %s", w.Code, w.Body)
	}
	if w := get(r, "", APIPath); w.Code != http.StatusUnauthorized {
		t.Fatalf("nobody: %d", w.Code)
	}
}

func TestAPersonReadsOnlyTheirOwnEntries(t *testing.T) {
	r := testRoutes(t)
	got := entries(t, get(r, aliceID, MinePath))
	if len(got) != 2 {
		t.Fatalf("%d entries", len(got))
	}
	for _, e := range got {
		if e.UserID != aliceID {
			t.Fatalf("alice read %s's entry", e.UserID)
		}
	}
	if w := get(r, aliceID, MinePath+"?user="+bobID); w.Code != http.StatusBadRequest {
		t.Fatalf("user on /mine: %d", w.Code)
	}
}

func TestTheAdminFiltersByUsernameOrId(t *testing.T) {
	r := testRoutes(t)
	for _, u := range []string{"bob", "@bob", bobID} {
		got := entries(t, get(r, adminID, APIPath+"?user="+u))
		if len(got) != 1 || got[0].UserID != bobID {
			t.Fatalf("user=%s: %+v", u, got)
		}
	}
	if w := get(r, adminID, APIPath+"?user=nobody"); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "no user named") {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}

func TestABadFilterIsRefusedNamingItsForm(t *testing.T) {
	r := testRoutes(t)
	cases := map[string]string{
		"since=yesterday":    "RFC 3339",
		"until=-5":           "RFC 3339",
		"outcome=great":      "asked, accepted",
		"kind=everything":    "write, own_view",
		"tool=Create%20Post": "tool's name",
		"per_page=5000":      "from 1 to 200",
		"page=x":             "from 0 to",
		"format=xml":         "json",
		"colour=red":         "the filters are",
	}
	for q, want := range cases {
		w := get(r, adminID, APIPath+"?"+q)
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), want) {
			t.Errorf("%s: %d %s", q, w.Code, w.Body)
		}
	}
	for _, q := range []string{"since=2026-03-10T12:00:00Z", "until=1773144000000", "since=2026-03-10T12:00:00%2B01:00"} {
		if w := get(r, adminID, APIPath+"?"+q); w.Code != http.StatusOK {
			t.Errorf("%s: %d %s", q, w.Code, w.Body)
		}
	}
}

func TestTheCSVHasAHeaderAndNoCellReadsAsAFormula(t *testing.T) {
	r := testRoutes(t)
	w := get(r, adminID, APIPath+"?format=csv")
	if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/csv") {
		t.Fatalf("%d %s", w.Code, w.Header())
	}
	rows, err := csv.NewReader(strings.NewReader(w.Body.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || strings.Join(rows[0], ",") != strings.Join(csvHeader, ",") {
		t.Fatalf("rows %q", rows)
	}
	for _, row := range rows[1:] {
		for _, cell := range row {
			if cell != "" && strings.ContainsRune("=+-@", rune(cell[0])) {
				t.Fatalf("cell %q reads as a formula", cell)
			}
		}
	}
	if rows[1][3] != `'=HYPERLINK("http://x")` {
		t.Fatalf("the client's name reads %q", rows[1][3])
	}
}

func TestCSVCellsThatLookLikeFormulasGetAnApostrophe(t *testing.T) {
	for in, want := range map[string]string{"=1+1": "'=1+1", "+1": "'+1", "-1": "'-1", "@SUM": "'@SUM", "\tx": "'\tx", "claude": "claude", "": ""} {
		if got := CSVCell(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestAPersonsReadsOfTheirOwnEntriesCountAgainstTheirRateAndTheAdminsDoNot(t *testing.T) {
	s := NewStore(kvtest.New())
	appendAll(t, s, ev(day0, aliceID, "create_post", OutcomeAsked))
	counted := map[string]int{}
	r := mux.NewRouter()
	(&Routes{Store: s, Log: &memLog{}, IsAdmin: func(id string) bool { return id == adminID },
		Limit: func(w http.ResponseWriter, userID, route string) bool {
			counted[userID+" "+route]++
			if counted[userID+" "+route] > 2 {
				w.Header().Set("Retry-After", "42")
				http.Error(w, "Too many requests", http.StatusTooManyRequests)
				return false
			}
			return true
		}}).Register(r)
	for i := range 2 {
		if w := get(r, aliceID, MinePath); w.Code != http.StatusOK {
			t.Fatalf("read %d: %d %s", i+1, w.Code, w.Body)
		}
	}
	if w := get(r, aliceID, MinePath); w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "42" {
		t.Fatalf("the third read past the rate: %d %s", w.Code, w.Body)
	}
	for range 3 {
		if w := get(r, adminID, APIPath); w.Code != http.StatusOK {
			t.Fatalf("the admin: %d", w.Code)
		}
	}
	if w := get(r, "", MinePath); w.Code != http.StatusUnauthorized || counted[" "+mineRoute] != 0 {
		t.Fatalf("nobody: %d, counted %v", w.Code, counted)
	}
	if len(counted) != 1 || counted[aliceID+" audit_mine"] != 3 {
		t.Fatalf("counted %v", counted)
	}
}
