package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vxrun/vx/internal/cache"
)

// A lockfile bump of many packages lists the first ten, then says how
// many more, as for files.
func TestPrintWhyCapsPackages(t *testing.T) {
	wy := &cache.Why{ID: "web#build", Cache: "miss", Key: strings.Repeat("a", 64), Reason: "r"}
	for i := range 12 {
		wy.Changes = append(wy.Changes, cache.Change{Kind: "package", Change: "modified", Name: fmt.Sprintf("p%02d", i),
			Old: []string{"1.0.0"}, New: []string{"1.0.1"}})
	}
	var b strings.Builder
	printWhy(&b, wy, "")
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{"web#build: would miss: r"}
	for i := range 10 {
		want = append(want, fmt.Sprintf("  dependency p%02d 1.0.0 → 1.0.1", i))
	}
	want = append(want, "  ... and 2 more packages (vx why --json lists them all)")
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
