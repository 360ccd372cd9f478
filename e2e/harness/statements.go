package harness

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"
)

// Statement is what PostgreSQL counted of one normalized statement since
// the counts were last reset.
type Statement struct {
	Query      string
	Calls      int64
	Plan, Exec time.Duration
}

// exec runs one statement on the harness's database.
func (pg *postgres) exec(query string) error {
	db, err := sql.Open("postgres", pg.dsn())
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec(query); err != nil {
		return fmt.Errorf("%s: %w", query, err)
	}
	return nil
}

// ResetStatementStats forgets what PostgreSQL counted so far (a server
// started with Options.StatementStats).
func (s *Server) ResetStatementStats() error {
	return s.pg.exec("SELECT pg_stat_statements_reset()")
}

// StatementStats is every statement PostgreSQL counted since the last reset
// (a server started with Options.StatementStats), the costliest first;
// the harness's own reads of the counts are left out.
func (s *Server) StatementStats(ctx context.Context) ([]Statement, error) {
	db, err := sql.Open("postgres", s.pg.dsn())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT regexp_replace(query, '\s+', ' ', 'g'), calls, total_plan_time, total_exec_time
FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'`)
	if err != nil {
		return nil, fmt.Errorf("read pg_stat_statements (is the server started with Options.StatementStats?): %w", err)
	}
	defer rows.Close()
	var out []Statement
	for rows.Next() {
		var st Statement
		var plan, exec float64 // milliseconds
		if err := rows.Scan(&st.Query, &st.Calls, &plan, &exec); err != nil {
			return nil, err
		}
		st.Plan, st.Exec = time.Duration(plan*float64(time.Millisecond)), time.Duration(exec*float64(time.Millisecond))
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b Statement) int { return cmp.Compare(b.Plan+b.Exec, a.Plan+a.Exec) })
	return out, rows.Err()
}
