package lockfile

import (
	"math/rand"
	"testing"
	"time"
)

// TestMutations parses a few thousand random mutations of each fixture (the
// fuzz targets do the same, open-ended, with go test -fuzz): no panic, no
// parse slower than a second.
func TestMutations(t *testing.T) {
	for _, tc := range []struct{ f, n string }{{"pnpm-v9.yaml", "pnpm-lock.yaml"}, {"pnpm-v6.yaml", "pnpm-lock.yaml"}, {"npm-v3.json", "package-lock.json"}} {
		seed := readFixture(t, tc.f)
		r := rand.New(rand.NewSource(1))
		for i := 0; i < 1000; i++ {
			b := append([]byte(nil), seed...)
			for k := 0; k < 1+r.Intn(8); k++ {
				switch r.Intn(3) {
				case 0:
					b[r.Intn(len(b))] = byte(r.Intn(256))
				case 1:
					i := r.Intn(len(b))
					b = append(b[:i], b[min(len(b), i+r.Intn(40)):]...)
				case 2:
					i, j := r.Intn(len(b)), r.Intn(len(b))
					b = append(b[:i:i], append(append([]byte(nil), b[j:min(len(b), j+r.Intn(60))]...), b[i:]...)...)
				}
				if len(b) == 0 {
					b = []byte("x")
				}
			}
			t0 := time.Now()
			if l, err := Parse(tc.n, b); err == nil {
				l.Closure(".", "apps/web")
				l.Describe("apps/web", ".")
			}
			if d := time.Since(t0); d > time.Second {
				t.Errorf("slow %v: %q", d, b)
			}
		}
	}
}
