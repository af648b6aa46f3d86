package config

import (
	"fmt"

	"github.com/vxrun/vx/internal/suggest"
)

// didYouMean returns `did you mean "<candidate>"?` for the candidate closest
// to key (see [suggest.Closest]), or "" when none is close.
func didYouMean(key string, candidates []string) string {
	best, ok := suggest.Closest(key, candidates)
	if !ok {
		return ""
	}
	return fmt.Sprintf("did you mean %q?", best)
}
