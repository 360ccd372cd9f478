package harness

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
)

// AuditLog is what Mattermost's own audit log holds on every node, one
// JSON record a line (ExperimentalAuditSettings.FileEnabled is on).
func (s *Server) AuditLog() (string, error) {
	s.mu.Lock()
	nodes := []*mmNode{s.node1, s.node2}
	s.mu.Unlock()
	var b strings.Builder
	for _, n := range nodes {
		if n == nil {
			continue
		}
		raw, err := os.ReadFile(n.auditLogPath())
		if errors.Is(err, os.ErrNotExist) {
			continue // nothing audited on this node yet
		}
		if err != nil {
			return "", err
		}
		b.Write(raw)
	}
	return b.String(), nil
}

// KVValue is the plugin's KV value under key straight from the database
// (nil when there is none).
func (s *Server) KVValue(ctx context.Context, key string) ([]byte, error) {
	db, err := sql.Open("postgres", s.pg.dsn())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var v []byte
	err = db.QueryRowContext(ctx, `SELECT pvalue FROM pluginkeyvaluestore WHERE pluginid = $1 AND pkey = $2`, PluginID, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read KV %s: %w", key, err)
	}
	return v, nil
}

// PlantKV writes a plugin KV value straight into the database, without
// expiry, as a record written long ago would be: a test plants what the
// plugin could not be made to write now (an audit day years old).
func (s *Server) PlantKV(ctx context.Context, key string, value []byte) error {
	db, err := sql.Open("postgres", s.pg.dsn())
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, `INSERT INTO pluginkeyvaluestore (pluginid, pkey, pvalue, expireat) VALUES ($1, $2, $3, 0)
		ON CONFLICT (pluginid, pkey) DO UPDATE SET pvalue = EXCLUDED.pvalue, expireat = 0`, PluginID, key, value)
	if err != nil {
		return fmt.Errorf("plant KV %s: %w", key, err)
	}
	return nil
}
