package mattermost

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
)

// queryRows runs a read through the plugin API's database driver and calls
// row for each of its rows, which scan reads into dest (one per column: a
// *string, *int64, *int, *bool, *[]byte or sql.Scanner; NULL reads as the
// zero value).
//
// Through that driver every call on a connection or its rows is a round
// trip to Mattermost, and database/sql makes two a query needs not: it asks
// for the column names before the first row and, after the last, whether
// another result set follows. A query here knows how many columns it
// selects, so it reads the rows from the driver's connection itself: the
// query, a round trip a row and one for the end, and closing the rows.
func queryRows(db *sql.DB, q string, args []any, columns int, row func(scan func(dest ...any) error) error) error {
	return queryRowsUpTo(db, q, args, columns, 0, row)
}

// queryOneRow is queryRows of a query that answers one row (an aggregate):
// the rows are closed after it, without the round trip that asks for a
// second.
func queryOneRow(db *sql.DB, q string, args []any, columns int, row func(scan func(dest ...any) error) error) error {
	return queryRowsUpTo(db, q, args, columns, 1, row)
}

// queryRowsUpTo is queryRows reading at most most rows (0: all of them).
func queryRowsUpTo(db *sql.DB, q string, args []any, columns, most int, row func(scan func(dest ...any) error) error) error {
	return queryRowsPlanned(db, nil, q, args, columns, most, row)
}

// queryRowsPlanned is queryRowsUpTo planned under settings: statements
// (SET LOCAL ...) run first in a read-only transaction that the query
// ends, so they hold for this query alone. Each is a round trip more.
func queryRowsPlanned(db *sql.DB, settings []string, q string, args []any, columns, most int, row func(scan func(dest ...any) error) error) error {
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close() }()
	direct := false
	err = conn.Raw(func(dc any) error {
		queryer, ok := dc.(driver.QueryerContext)
		if !ok {
			return nil
		}
		direct = true
		if len(settings) > 0 {
			end, err := planned(ctx, dc, settings)
			if err != nil {
				return err
			}
			defer end()
		}
		named := make([]driver.NamedValue, len(args))
		for i, a := range args {
			v, err := driver.DefaultParameterConverter.ConvertValue(a)
			if err != nil {
				return fmt.Errorf("argument %d: %w", i+1, err)
			}
			named[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
		}
		rows, err := queryer.QueryContext(ctx, q, named)
		if err != nil {
			return err
		}
		defer func() { _ = rows.Close() }()
		vals := make([]driver.Value, columns)
		scan := func(dest ...any) error { return assign(vals, dest) }
		for n := 0; most == 0 || n < most; n++ {
			err := rows.Next(vals)
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if err := row(scan); err != nil {
				return err
			}
		}
		return nil
	})
	if direct || err != nil {
		return err
	}
	// A driver without a direct query (none that Mattermost runs).
	var on interface {
		QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	} = conn
	if len(settings) > 0 {
		tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		for _, s := range settings {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		on = tx
	}
	rows, err := on.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer closeRows(rows)
	got, into, vals := make([]any, columns), make([]any, columns), make([]driver.Value, columns)
	for i := range got {
		into[i] = &got[i]
	}
	scan := func(dest ...any) error { return assign(vals, dest) }
	for n := 0; (most == 0 || n < most) && rows.Next(); n++ {
		if err := rows.Scan(into...); err != nil {
			return err
		}
		for i, v := range got {
			vals[i] = v
		}
		if err := row(scan); err != nil {
			return err
		}
	}
	return rows.Err()
}

// planned begins a read-only transaction on a driver's connection and runs
// settings in it; end ends it (nothing was written, so a rollback).
func planned(ctx context.Context, dc any, settings []string) (end func(), err error) {
	begin, ok := dc.(driver.ConnBeginTx)
	exec, canExec := dc.(driver.ExecerContext)
	if !ok || !canExec {
		return nil, errors.New("the database driver runs no transactions")
	}
	tx, err := begin.BeginTx(ctx, driver.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	for _, s := range settings {
		if _, err := exec.ExecContext(ctx, s, nil); err != nil {
			_ = tx.Rollback()
			return nil, err
		}
	}
	return func() { _ = tx.Rollback() }, nil
}

// assign reads one row's values into dest as database/sql's Scan would for
// these types, NULL as the zero value.
func assign(vals []driver.Value, dest []any) error {
	if len(dest) != len(vals) {
		return fmt.Errorf("a row of %d columns read into %d values", len(vals), len(dest))
	}
	for i, v := range vals {
		var err error
		switch d := dest[i].(type) {
		case sql.Scanner:
			err = d.Scan(v)
		case *string:
			var n sql.NullString
			err = n.Scan(v)
			*d = n.String
		case *int64:
			var n sql.NullInt64
			err = n.Scan(v)
			*d = n.Int64
		case *int:
			var n sql.NullInt64
			err = n.Scan(v)
			*d = int(n.Int64)
		case *bool:
			var n sql.NullBool
			err = n.Scan(v)
			*d = n.Bool
		case *[]byte:
			switch b := v.(type) {
			case nil:
				*d = nil
			case []byte:
				*d = bytes.Clone(b)
			case string:
				*d = []byte(b)
			default:
				err = fmt.Errorf("%T is not bytes", v)
			}
		default:
			err = fmt.Errorf("cannot read into %T", dest[i])
		}
		if err != nil {
			return fmt.Errorf("column %d: %w", i+1, err)
		}
	}
	return nil
}
