package mattermost

import (
	"fmt"
	"slices"
	"strings"
)

// Trips is what the calls between two snapshots of Counts cost, in the
// columns of the table of round trips per tool in docs/performance.md: all
// round trips, the KV store's reads and writes, the database queries and
// the driver's round trips they took, and each method's count.
type Trips struct {
	All, KVReads, KVWrites, Queries, Driver int64
	Methods                                 map[string]int64
}

// TripsBetween is the Trips from one Snapshot to a later one.
func TripsBetween(before, after map[string]int64) Trips {
	r := Trips{Methods: map[string]int64{}}
	for m, n := range after {
		d := n - before[m]
		if d == 0 {
			continue
		}
		r.All += d
		switch {
		case strings.HasPrefix(m, DriverPrefix):
			r.Driver += d
			if strings.HasSuffix(m, "Query") || strings.HasSuffix(m, "Exec") {
				r.Queries += d
			}
		case m == "KVGet" || m == "KVList":
			r.KVReads += d
		case strings.HasPrefix(m, "KV"):
			r.KVWrites += d
		}
		r.Methods[m] = d
	}
	return r
}

// Row is tool's row of the table for one call of these costs.
func (r Trips) Row(tool string) string {
	names := make([]string, 0, len(r.Methods))
	for m := range r.Methods {
		names = append(names, m)
	}
	slices.Sort(names)
	what := make([]string, 0, len(names))
	for _, m := range names {
		what = append(what, fmt.Sprintf("%s %d", m, r.Methods[m]))
	}
	return fmt.Sprintf("| `%s` | %d | %d | %d | %d (%d) | %s |", tool, r.All, r.KVReads, r.KVWrites, r.Queries, r.Driver, strings.Join(what, ", "))
}
