package harness

import (
	"context"
	"fmt"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"
)

// MiBOfText is the benchmarks' "1 MB text file": numbered lines up to just
// over 1 MiB, so a first window reads it whole and later windows are cut
// from its kept text.
func MiBOfText() []byte { return TextOf(1 << 20) }

// TextOf is numbered lines of text, n bytes at least (less than a line more).
func TextOf(n int) []byte {
	var text strings.Builder
	for i := 1; text.Len() < n; i++ {
		fmt.Fprintf(&text, "%06d the quick brown fox jumps over the lazy dog, again and again\n", i)
	}
	return []byte(text.String())
}

// TownSquare is the team's town square as u sees it, where the benchmarks
// post their files.
func (s *Server) TownSquare(ctx context.Context, u User) (*model.Channel, error) {
	ch, _, err := s.Client(u).GetChannelByName(ctx, "town-square", s.Team.Id, "")
	return ch, err
}
