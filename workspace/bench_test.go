package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/vxrun/vx/internal/testdir"
)

// genWorkspace writes a workspace of n projects under dir: a root declaring
// "packages/*" and "apps/**", n/10 apps two levels down and the rest under
// packages/, each with a name, a version, scripts, three workspace
// dependencies and two external ones, plus a src/ directory and a
// node_modules/ the walk must skip. It returns the path of one project.
func genWorkspace(tb testing.TB, dir string, n int) string {
	tb.Helper()
	write(tb, filepath.Join(dir, "package.json"), `{"name": "bench-root", "private": true, "workspaces": ["packages/*", "apps/**"], "scripts": {"build": "echo"}}`)
	var last string
	for i := 0; i < n; i++ {
		rel := filepath.Join("packages", "p"+strconv.Itoa(i))
		if i%10 == 9 {
			rel = filepath.Join("apps", "group"+strconv.Itoa(i%7), "app"+strconv.Itoa(i))
		}
		pdir := filepath.Join(dir, rel)
		manifest := fmt.Sprintf(`{
  "name": "@bench/p%d",
  "version": "1.0.%d",
  "description": "generated project %d for the discovery benchmark",
  "main": "dist/index.js",
  "scripts": {"build": "tsc -p .", "test": "node --test", "lint": "eslint src"},
  "dependencies": {"@bench/p%d": "workspace:*", "@bench/p%d": "^1.0.0", "left-pad": "^1.3.0"},
  "devDependencies": {"@bench/p%d": "*", "typescript": "^5.4.0"}
}
`, i, i, i, (i+1)%n, (i+7)%n, (i+13)%n)
		write(tb, filepath.Join(pdir, "package.json"), manifest)
		write(tb, filepath.Join(pdir, "src", "index.ts"), "export {};\n")
		if i%3 == 0 {
			write(tb, filepath.Join(pdir, "node_modules", "dep", "package.json"), `{"name": "dep"}`)
		}
		last = pdir
	}
	return last
}

// BenchmarkDiscover discovers generated workspaces of 100, 1,000 and
// 10,000 projects from one project's directory (the usual start). The goal
// is under 50 ms at 1,000 projects, linear in projects:
//
//	go test ./workspace -run '^$' -bench Discover -benchmem
func BenchmarkDiscover(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			if n > 1000 && testing.Short() {
				b.Skip("large workspace skipped in -short mode")
			}
			dir, err := filepath.EvalSymlinks(testdir.New(b))
			if err != nil {
				b.Fatal(err)
			}
			start := genWorkspace(b, dir, n)
			w, err := Discover(start)
			if err != nil {
				b.Fatal(err)
			}
			if len(w.Projects) != n+1 {
				b.Fatalf("Discover() found %d projects, want %d", len(w.Projects), n+1)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := Discover(start); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/project")
		})
	}
}

// TestGenWorkspace keeps the benchmark's generator honest: the workspace it
// writes is discovered with every project and the dependency links.
func TestGenWorkspace(t *testing.T) {
	dir, err := filepath.EvalSymlinks(testdir.New(t))
	if err != nil {
		t.Fatal(err)
	}
	start := genWorkspace(t, dir, 30)
	w, err := Discover(start)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Projects) != 31 {
		t.Fatalf("Discover() found %d projects, want 31", len(w.Projects))
	}
	p := w.Project("@bench/p0")
	if p == nil {
		t.Fatal(`Project("@bench/p0") = nil`)
	}
	if got, want := fmt.Sprint(depNames(p)), "[@bench/p1 @bench/p13 @bench/p7]"; got != want {
		t.Errorf("p0 Deps = %s, want %s", got, want)
	}
	if w.Current.RelDir != "apps/group1/app29" {
		t.Errorf("Current = %q, want apps/group1/app29", w.Current.RelDir)
	}
	if _, err := os.Stat(filepath.Join(dir, "packages", "p0", "node_modules", "dep", "package.json")); err != nil {
		t.Errorf("the generator wrote no node_modules: %v", err)
	}
}
