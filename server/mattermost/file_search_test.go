package mattermost

import (
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
)

// The statements are run against PostgreSQL by the end-to-end suite (on
// Mattermost 11.4 and 9.11); no MySQL runs here, so its statement is held
// to its text.

func TestAFileSearchOnPostgreSQLMatchesTheWordsWithTheIndexesExpressionsAndPagesByTimeAndID(t *testing.T) {
	q := FileQuery{Words: []string{"Harbour", "q3-report"}, Extension: ".PDF", NameContains: "50%_off", Since: 100, Before: 900,
		From: FilePosition{CreateAt: 500, ID: "abcdefghijklmnopqrstuvwxyz"}, Limit: 20}
	stmt, args, err := fileSearchQuery(driverPostgres, "user-id", q, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		// The expressions of idx_fileinfo_name_txt, idx_fileinfo_name_splitted
		// and idx_fileinfo_content_txt, so the planner can use them, alone in
		// a subquery.
		"FROM (SELECT Id FROM FileInfo WHERE to_tsvector('english', Name) @@ to_tsquery('english', $1)" +
			" OR to_tsvector('english', translate(Name, '.,-', '   ')) @@ to_tsquery('english', $1)" +
			" OR to_tsvector('english', Content) @@ to_tsquery('english', $1) OFFSET 0) m\nJOIN FileInfo f ON f.Id = m.Id",
		"JOIN ChannelMembers cm ON cm.ChannelId = f.ChannelId AND cm.UserId = $2",
		"c.DeleteAt = 0",
		"f.DeleteAt = 0 AND f.PostId <> '' AND p.DeleteAt = 0 AND p.ChannelId = f.ChannelId AND p.FileIds LIKE '%' || f.Id || '%'",
		"f.Extension = $3",
		"LOWER(f.Name) LIKE $4",
		"f.CreateAt >= $5", "f.CreateAt < $6",
		"(f.CreateAt < $7 OR f.CreateAt = $7 AND f.Id < $8)",
		"ORDER BY f.CreateAt DESC, f.Id DESC\nLIMIT 21",
	} {
		if !strings.Contains(stmt, want) {
			t.Errorf("the statement lacks %q:\n%s", want, stmt)
		}
	}
	if strings.Contains(stmt, "SELECT f.Content") || strings.Contains(stmt, ", f.Content,") {
		t.Errorf("the statement selects the files' text:\n%s", stmt)
	}
	if plan := searchPlan(driverPostgres, q); len(plan) != 1 || !strings.Contains(plan[0], "set_config('enable_seqscan', 'off', true)") ||
		!strings.Contains(plan[0], "set_config('join_collapse_limit', '1', true)") {
		t.Errorf("a text search is planned under %q, want sequential scans off and the joins in the order written, for its transaction only", plan)
	}
	if plan := searchPlan(driverPostgres, FileQuery{Limit: 1}); plan != nil {
		t.Errorf("a listing without words is planned under %q, want as the database would", plan)
	}
	want := []any{"harbour:* & q3:* & report:*", "user-id", "pdf", `%50\%\_off%`, int64(100), int64(900), int64(500), "abcdefghijklmnopqrstuvwxyz"}
	if len(args) != len(want) {
		t.Fatalf("arguments %#v, want %#v", args, want)
	}
	for i := range want {
		if args[i] != want[i] {
			t.Errorf("argument %d is %#v, want %#v", i+1, args[i], want[i])
		}
	}
}

func TestAFileSearchOnMySQLUsesItsFulltextIndexesAndBindsEachUseOnce(t *testing.T) {
	q := FileQuery{Words: []string{"harbour", "cranes"}, AnyWord: true, From: FilePosition{CreateAt: 500, ID: "abcdefghijklmnopqrstuvwxyz"}, Limit: 5}
	stmt, args, err := fileSearchQuery(driverMySQL, "user-id", q, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"cm.UserId = ?",
		"p.FileIds LIKE CONCAT('%', f.Id, '%')",
		"(f.CreateAt < ? OR f.CreateAt = ? AND f.Id < ?)",
		"(SELECT Id FROM FileInfo WHERE MATCH (Name) AGAINST (? IN BOOLEAN MODE) UNION SELECT Id FROM FileInfo WHERE MATCH (Content) AGAINST (? IN BOOLEAN MODE)) m",
		"LIMIT 6",
	} {
		if !strings.Contains(stmt, want) {
			t.Errorf("the statement lacks %q:\n%s", want, stmt)
		}
	}
	if strings.Contains(stmt, "c.DeleteAt = 0") {
		t.Errorf("archived channels are left out although the server shows them:\n%s", stmt)
	}
	if strings.Contains(stmt, "$") {
		t.Errorf("the MySQL statement has PostgreSQL's placeholders:\n%s", stmt)
	}
	if n := strings.Count(stmt, "?"); n != len(args) {
		t.Fatalf("%d placeholders and %d arguments", n, len(args))
	}
	if args[0] != "harbour* cranes*" || args[1] != "harbour* cranes*" {
		t.Errorf("the boolean query is bound as %#v, want \"harbour* cranes*\" twice", args[:2])
	}
	if plan := searchPlan(driverMySQL, q); plan != nil {
		t.Errorf("MySQL is given %q to plan under", plan)
	}
}

func TestAFileSearchInOneChannelNeedsNoMembership(t *testing.T) {
	stmt, args, err := fileSearchQuery(driverPostgres, "user-id", FileQuery{ChannelID: "channel-id", Limit: 10}, false)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stmt, "ChannelMembers") || !strings.Contains(stmt, "WHERE f.ChannelId = $1") || args[0] != "channel-id" {
		t.Errorf("a search of one channel the caller can read (checked before) should not ask for membership:\n%s\n%#v", stmt, args)
	}
}

func TestWordsWithNothingToSearchForMakeNoStatement(t *testing.T) {
	stmt, _, err := fileSearchQuery(driverPostgres, "user-id", FileQuery{Words: []string{"--", "!!"}, Limit: 10}, false)
	if err != nil || stmt != "" {
		t.Fatalf("statement %q, error %v; want none", stmt, err)
	}
	if _, _, err := fileSearchQuery("sqlite", "user-id", FileQuery{Limit: 10}, false); err == nil {
		t.Fatal("a driver Mattermost does not run was accepted")
	}
}

func TestSearchTermsAreTheRunsOfLettersAndDigitsOnceEachAndBounded(t *testing.T) {
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{"Q3-Report", "q3"}, "q3 report"},
		{[]string{"rock'n'roll"}, "rock n roll"},
		{[]string{"a:*|b&!c"}, "a b c"},
		{[]string{"Überseeräume"}, "überseeräume"},
		{[]string{strings.Repeat("w ", 40)}, "w"},
	} {
		if got := strings.Join(searchTerms(tc.words), " "); got != tc.want {
			t.Errorf("searchTerms(%q) = %q, want %q", tc.words, got, tc.want)
		}
	}
	var many []string
	for i := range 40 {
		many = append(many, strings.Repeat("x", i+1))
	}
	if n := len(searchTerms(many)); n != maxSearchTerms {
		t.Errorf("%d terms kept of 40, want %d", n, maxSearchTerms)
	}
	if long := searchTerms([]string{strings.Repeat("ä", 5000)}); len(long) != 1 || len([]rune(long[0])) != maxTermRunes {
		t.Errorf("a term of 5,000 letters was kept as %d runes, want its first %d", len([]rune(long[0])), maxTermRunes)
	}
}

func TestAFilePositionReadsBackAsWrittenAndRefusesWhatItDidNotWrite(t *testing.T) {
	p := FilePosition{CreateAt: 1765000000000, ID: "abcdefghijklmnopqrstuvwxyz"}
	got, err := ParseFilePosition(p.String())
	if err != nil || got != p {
		t.Fatalf("read back %+v, %v; want %+v", got, err, p)
	}
	for _, bad := range []string{"", "12", "x:abcdefghijklmnopqrstuvwxyz", "-1:abcdefghijklmnopqrstuvwxyz", "12:short", "12:abcdefghijklmnopqrstuvwxyz:x"} {
		if _, err := ParseFilePosition(bad); err == nil {
			t.Errorf("%q was read as a position", bad)
		}
	}
}

func TestASnippetIsReadFromTheStartOfEachTextOnlyAroundTheFirstWordFound(t *testing.T) {
	for _, driver := range []string{driverPostgres, driverMySQL} {
		stmt, args, err := snippetQuery(driver, []string{"f1", "f2"}, []string{"harbour", "cranes"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stmt, "LEFT(Content, 65536)") || !strings.Contains(stmt, "COALESCE(NULLIF(") {
			t.Errorf("%s: the snippet does not look only at the start of the text:\n%s", driver, stmt)
		}
		if len(args) != 4 || args[0] != "harbour" || args[3] != "f2" {
			t.Errorf("%s: arguments %#v", driver, args)
		}
	}
}

func FuzzAFilePositionThatReadsWritesBackTheSame(f *testing.F) {
	for _, seed := range []string{"1765000000000:abcdefghijklmnopqrstuvwxyz", "0:abcdefghijklmnopqrstuvwxyz", "", ":", "9999999999999999999:x", "-1:abcdefghijklmnopqrstuvwxyz"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseFilePosition(s)
		if err != nil {
			return
		}
		if p.IsStart() || p.CreateAt < 0 || !model.IsValidId(p.ID) {
			t.Fatalf("%q read as %+v", s, p)
		}
		again, err := ParseFilePosition(p.String())
		if err != nil || again != p {
			t.Fatalf("%q read as %+v, written %q, read back %+v, %v", s, p, p.String(), again, err)
		}
	})
}

func TestAFileSearchOnEitherDriverKeepsOnlyFilesTheirLivePostStillListsInTheirChannel(t *testing.T) {
	for _, driver := range []string{driverPostgres, driverMySQL} {
		lists := map[string]string{
			driverPostgres: "p.FileIds LIKE '%' || f.Id || '%'",
			driverMySQL:    "p.FileIds LIKE CONCAT('%', f.Id, '%')",
		}[driver]
		for _, q := range []FileQuery{
			{Limit: 10},
			{Words: []string{"harbour"}, Limit: 10},
			{ChannelID: "channel-id", Limit: 10},
		} {
			stmt, _, err := fileSearchQuery(driver, "user-id", q, false)
			if err != nil {
				t.Fatal(err)
			}
			// The post by its primary key, once per file the rest keeps.
			for _, want := range []string{
				"JOIN Posts p ON p.Id = f.PostId\n",
				"f.DeleteAt = 0 AND f.PostId <> '' AND p.DeleteAt = 0 AND p.ChannelId = f.ChannelId AND " + lists,
			} {
				if !strings.Contains(stmt, want) {
					t.Errorf("%s, %+v: the statement lacks %q:\n%s", driver, q, want, stmt)
				}
			}
			if n := strings.Count(stmt, "Posts"); n != 1 {
				t.Errorf("%s, %+v: the statement reads Posts %d times, want once, by id:\n%s", driver, q, n, stmt)
			}
		}
	}
}
