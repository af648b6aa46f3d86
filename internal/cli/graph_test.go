package cli

import (
	"testing"

	"github.com/vxrun/vx/internal/view"

	"github.com/google/go-cmp/cmp"
)

func TestCacheInfo(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	for _, tt := range []struct {
		name string
		pc   *planCache
		want view.CacheInfo
	}{
		{"not cached", nil, view.CacheInfo{State: "off"}},
		{"no key", &planCache{Error: "cannot read src"}, view.CacheInfo{State: "miss", Error: "cannot read src"}},
		{"local hit", &planCache{Key: "k", Hit: true}, view.CacheInfo{State: "hit", Key: "k"}},
		{"remote hit", &planCache{Key: "k", RemoteHit: &yes}, view.CacheInfo{State: "remote-hit", Key: "k"}},
		{"remote asked, miss", &planCache{Key: "k", RemoteHit: &no}, view.CacheInfo{State: "miss", Key: "k"}},
		{"miss", &planCache{Key: "k"}, view.CacheInfo{State: "miss", Key: "k"}},
	} {
		if diff := cmp.Diff(tt.want, cacheInfo(tt.pc)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
