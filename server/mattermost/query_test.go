package mattermost

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"sync/atomic"
	"testing"
)

// countingDriver's rows count the calls that are round trips through the
// plugin API's driver but answer nothing a query here needs.
type countingDriver struct {
	columns, nextResultSet atomic.Int32
	queried                []driver.NamedValue
	direct                 bool // its connections answer queries directly
}

var tableRows = [][]driver.Value{
	{"a", int64(7), true, []byte("x"), "13"},
	{nil, nil, nil, nil, int64(2)},
}

func (d *countingDriver) Open(string) (driver.Conn, error) {
	if d.direct {
		return &directConn{preparingConn{d: d}}, nil
	}
	return &preparingConn{d: d}, nil
}

type preparingConn struct{ d *countingDriver }

func (c *preparingConn) Prepare(string) (driver.Stmt, error) { return &stmt{d: c.d}, nil }
func (c *preparingConn) Close() error                        { return nil }
func (c *preparingConn) Begin() (driver.Tx, error)           { return nil, errors.New("no transactions") }

type directConn struct{ preparingConn }

func (c *directConn) QueryContext(_ context.Context, _ string, args []driver.NamedValue) (driver.Rows, error) {
	c.d.queried = args
	return &countingRows{d: c.d}, nil
}

type stmt struct{ d *countingDriver }

func (s *stmt) Close() error                               { return nil }
func (s *stmt) NumInput() int                              { return -1 }
func (s *stmt) Exec([]driver.Value) (driver.Result, error) { return nil, errors.New("no writes") }
func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	s.d.queried = nil
	for i, a := range args {
		s.d.queried = append(s.d.queried, driver.NamedValue{Ordinal: i + 1, Value: a})
	}
	return &countingRows{d: s.d}, nil
}

type countingRows struct {
	d *countingDriver
	n int
}

func (r *countingRows) Columns() []string {
	r.d.columns.Add(1)
	return []string{"s", "i", "b", "raw", "n"}
}
func (r *countingRows) Close() error { return nil }
func (r *countingRows) Next(dest []driver.Value) error {
	if r.n == len(tableRows) {
		return io.EOF
	}
	copy(dest, tableRows[r.n])
	r.n++
	return nil
}
func (r *countingRows) HasNextResultSet() bool { r.d.nextResultSet.Add(1); return false }
func (r *countingRows) NextResultSet() error   { return io.EOF }

type scanned struct {
	s   string
	i   int64
	b   bool
	raw []byte
	n   int
}

func readTable(t *testing.T, d *countingDriver) []scanned {
	t.Helper()
	db := sql.OpenDB(connector{d})
	defer db.Close()
	var got []scanned
	err := queryRows(db, "SELECT s, i, b, raw, n FROM t WHERE k = $1", []any{"key"}, 5, func(scan func(...any) error) error {
		var r scanned
		if err := scan(&r.s, &r.i, &r.b, &r.raw, &r.n); err != nil {
			return err
		}
		got = append(got, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

type connector struct{ d *countingDriver }

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.d.Open("") }
func (c connector) Driver() driver.Driver                        { return c.d }

func TestAQueryReadsItsRowsWithoutAskingForColumnNamesOrAnotherResultSet(t *testing.T) {
	d := &countingDriver{direct: true}
	got := readTable(t, d)
	if len(got) != 2 || got[0].s != "a" || got[0].i != 7 || !got[0].b || string(got[0].raw) != "x" || got[0].n != 13 {
		t.Fatalf("first row %+v", got)
	}
	if r := got[1]; r.s != "" || r.i != 0 || r.b || r.raw != nil || r.n != 2 {
		t.Fatalf("a row of NULLs reads as zero values, got %+v", r)
	}
	if len(d.queried) != 1 || d.queried[0].Value != "key" || d.queried[0].Ordinal != 1 {
		t.Fatalf("arguments %+v", d.queried)
	}
	if n, m := d.columns.Load(), d.nextResultSet.Load(); n != 0 || m != 0 {
		t.Fatalf("asked for the columns %d times and for another result set %d times, want neither", n, m)
	}
}

func TestADriverWithoutDirectQueriesReadsTheSameRows(t *testing.T) {
	direct, other := readTable(t, &countingDriver{direct: true}), readTable(t, &countingDriver{})
	if len(direct) != len(other) {
		t.Fatalf("%d rows, want %d", len(other), len(direct))
	}
	for i := range direct {
		if a, b := direct[i], other[i]; a.s != b.s || a.i != b.i || a.b != b.b || string(a.raw) != string(b.raw) || a.n != b.n {
			t.Fatalf("row %d: %+v, want %+v", i, b, a)
		}
	}
}

func TestARowReadIntoTheWrongNumberOfValuesIsAnError(t *testing.T) {
	db := sql.OpenDB(connector{&countingDriver{direct: true}})
	defer db.Close()
	err := queryRows(db, "SELECT s, i, b, raw, n FROM t", nil, 5, func(scan func(...any) error) error {
		var s string
		return scan(&s)
	})
	if err == nil {
		t.Fatal("a row of five columns read into one value, and no error")
	}
}
