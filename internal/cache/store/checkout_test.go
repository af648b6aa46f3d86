package store

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/testdir"
	"github.com/vxrun/vx/internal/testtool"
)

// TestCheckoutFile: a store inside the checkout keeps its memo under its
// name; a store elsewhere keeps one per checkout, and a prune removes
// those of checkouts unused for 30 days, nothing else.
func TestCheckoutFile(t *testing.T) {
	base := testdir.New(t)
	root, other := filepath.Join(base, "ws"), filepath.Join(base, "ws2")
	own := filepath.Join(root, "node_modules", ".cache", "vx")
	if got, want := CheckoutFile(own, root, "memo"), filepath.Join(own, "memo"); got != want {
		t.Errorf("CheckoutFile in the checkout's own store = %q, want %q", got, want)
	}
	shared := filepath.Join(base, "main", "node_modules", ".cache", "vx")
	a, b := CheckoutFile(shared, root, "memo"), CheckoutFile(shared, other, "memo")
	if a == b || filepath.Dir(a) != shared || !strings.HasPrefix(filepath.Base(a), "memo-") || len(filepath.Base(a)) != len("memo-")+16 {
		t.Errorf("CheckoutFile in a shared store: %q and %q, want two memo-<16 hex> files in %s", a, b, shared)
	}
	if got := CheckoutFile(filepath.Join(base, "ws-cache"), root, "memo"); filepath.Base(got) == "memo" {
		t.Errorf("CheckoutFile in a sibling directory whose name starts as the root's = %q: taken for the checkout's own", got)
	}

	st, err := OpenStore(shared)
	if err != nil {
		t.Fatal(err)
	}
	stale := CheckoutFile(shared, other, "config-memo")
	keep := []string{a, filepath.Join(shared, "memo"), filepath.Join(shared, "memo-notahexdigest!"), filepath.Join(shared, "notes-0123456789abcdef")}
	for _, p := range append(keep, stale) {
		os.WriteFile(p, []byte("x"), 0o644)
	}
	old := time.Now().Add(-31 * 24 * time.Hour)
	for _, p := range append(keep, stale) {
		if p != a {
			os.Chtimes(p, old, old)
		}
	}
	s, _ := st.Status()
	if _, err := st.Prune(PruneOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed by a prune", filepath.Base(p))
		}
	}
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("%s, unused for 31 days, kept by a prune", filepath.Base(stale))
	}
	if s.Bytes < 3 {
		t.Errorf("Status counts %d bytes, want the checkouts' files among them", s.Bytes)
	}
}

// TestFindCheckout reads the layouts git writes, without git.
func TestFindCheckout(t *testing.T) {
	base := testdir.New(t)
	write := func(p, s string) {
		p = filepath.Join(base, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mkdir := func(p string) { os.MkdirAll(filepath.Join(base, filepath.FromSlash(p)), 0o755) }
	abs := func(p string) string { return filepath.Join(base, filepath.FromSlash(p)) }

	// A repository with its main worktree and two linked ones (gitdir
	// absolute, and relative as git worktree add --relative-paths writes).
	mkdir("main/.git/objects")
	mkdir("main/ws")
	write("main/.git/worktrees/w1/commondir", "../..\n")
	write("w1/.git", "gitdir: "+abs("main/.git/worktrees/w1")+"\n")
	mkdir("w1/ws/sub")
	write("main/.git/worktrees/w2/commondir", "../..\n")
	write("w2/.git", "gitdir: ../main/.git/worktrees/w2\n")
	mkdir("w2/other")
	// A bare repository with worktrees.
	mkdir("bare.git/objects")
	write("bare.git/config", "[core]\n\trepositoryformatversion = 0\n\tbare = true\n")
	write("bare.git/worktrees/w3/commondir", "../..\n")
	write("w3/.git", "gitdir: "+abs("bare.git/worktrees/w3")+"\n")
	write("bare.git/worktrees/w5/commondir", "../..\n")
	write("w5/.git", "gitdir: "+abs("bare.git/worktrees/w5")+"\n")
	mkdir("w5/apps")
	// A repository made with --separate-git-dir, with a worktree.
	write("sep.git/config", "[core]\n\tbare = false\n")
	write("sep.git/worktrees/w4/commondir", "../..\n")
	write("w4/.git", "gitdir: "+abs("sep.git/worktrees/w4")+"\n")
	// A submodule: a .git file, a git directory without commondir.
	write("main/.git/modules/s/HEAD", "ref: refs/heads/main\n")
	write("main/s/.git", "gitdir: ../.git/modules/s\n")
	// No git at all.
	mkdir("plain/ws")

	tests := []struct {
		root     string
		want     Checkout
		store    string
		storeWhy string
	}{
		{"main/ws", Checkout{Top: abs("main"), Rel: "ws"}, "", ""},
		{"w1/ws", Checkout{Top: abs("w1"), Rel: "ws", Main: abs("main")}, abs("main/ws/node_modules/.cache/vx"), ""},
		{"w1", Checkout{Top: abs("w1"), Rel: ".", Main: abs("main")}, abs("main/node_modules/.cache/vx"), ""},
		{"w1/ws/sub", Checkout{Top: abs("w1"), Rel: filepath.FromSlash("ws/sub"), Main: abs("main")}, "", "has no directory ws/sub"},
		{"w2/other", Checkout{Top: abs("w2"), Rel: "other", Main: abs("main")}, "", "has no directory other"},
		{"w3", Checkout{Top: abs("w3"), Rel: ".", Bare: abs("bare.git")}, abs("bare.git/vx-cache/root"), ""},
		{"w5/apps", Checkout{Top: abs("w5"), Rel: "apps", Bare: abs("bare.git")}, abs("bare.git/vx-cache/ws-d56f6359d240f69e"), ""}, // printf apps | sha256sum
		{"w4", Checkout{Top: abs("w4"), Rel: ".", Why: "its repository " + abs("sep.git") + " is neither the .git directory of a main worktree nor bare (made with --separate-git-dir?)"}, "", "neither"},
		{"main/s", Checkout{Top: abs("main/s"), Rel: "."}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.root, func(t *testing.T) {
			co := FindCheckout(abs(tt.root))
			if diff := cmp.Diff(tt.want, co); diff != "" {
				t.Errorf("FindCheckout (-want +got):\n%s", diff)
			}
			dir, why := co.SharedStoreDir()
			if dir != tt.store || !strings.Contains(why, tt.storeWhy) || (tt.storeWhy == "") != (why == "") {
				t.Errorf("SharedStoreDir = %q, %q; want %q, one that says %q", dir, why, tt.store, tt.storeWhy)
			}
		})
	}
	if co := FindCheckout(abs("plain/ws")); co.Top != "" && strings.HasPrefix(co.Top, base) {
		t.Errorf("FindCheckout without git: %+v", co)
	}
}

// TestFindCheckoutAgreesWithGit: on a real repository, the main worktree
// FindCheckout reads is the one git names (git rev-parse
// --git-common-dir), from a linked worktree and from the main one.
func TestFindCheckoutAgreesWithGit(t *testing.T) {
	git := testtool.Need(t, "apt-get install git", "git")
	base := testdir.New(t)
	main, wt := filepath.Join(base, "main"), filepath.Join(base, "wt")
	run := func(dir string, args ...string) string {
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	os.MkdirAll(filepath.Join(main, "ws"), 0o755)
	os.WriteFile(filepath.Join(main, "ws/package.json"), []byte("{}"), 0o644)
	run(main, "init", "-q")
	run(main, "add", "-A")
	run(main, "commit", "-qm", "init")
	run(main, "worktree", "add", "-q", "--detach", wt)

	start := time.Now()
	co := FindCheckout(filepath.Join(wt, "ws"))
	took := time.Since(start)
	common := run(filepath.Join(wt, "ws"), "rev-parse", "--path-format=absolute", "--git-common-dir")
	// git prints resolved paths (/private/var/... on macOS).
	same := func(a, b string) bool {
		ra, _ := filepath.EvalSymlinks(a)
		rb, _ := filepath.EvalSymlinks(b)
		return ra == rb
	}
	if want := filepath.Dir(common); !same(co.Main, want) || co.Top != wt {
		t.Errorf("FindCheckout = %+v; git says the common directory is %s (want Main %s, Top %s)", co, common, want, wt)
	}
	dir, why := co.SharedStoreDir()
	if want := filepath.Join(main, "ws", "node_modules", ".cache", "vx"); dir != want {
		t.Errorf("SharedStoreDir = %q (%s), want %q", dir, why, want)
	}
	if co := FindCheckout(filepath.Join(main, "ws")); co.Main != "" || co.Top != main {
		t.Errorf("FindCheckout in the main worktree = %+v", co)
	}
	t.Logf("FindCheckout took %v (%s/%s)", took, runtime.GOOS, runtime.GOARCH)

	// A bare clone's worktree: the store is in the bare repository.
	bare, bwt := filepath.Join(base, "acme.git"), filepath.Join(base, "bwt")
	run(base, "clone", "-q", "--bare", main, bare)
	run(bare, "worktree", "add", "-q", "--detach", bwt)
	co = FindCheckout(filepath.Join(bwt, "ws"))
	common = run(filepath.Join(bwt, "ws"), "rev-parse", "--path-format=absolute", "--git-common-dir")
	if !same(co.Bare, common) || co.Main != "" {
		t.Errorf("FindCheckout in a bare repository's worktree = %+v; git says the common directory is %s", co, common)
	}
	if dir, _ := co.SharedStoreDir(); !strings.HasPrefix(dir, filepath.Join(bare, "vx-cache")+string(filepath.Separator)) {
		t.Errorf("SharedStoreDir in a bare repository's worktree = %q, want one under %s", dir, filepath.Join(bare, "vx-cache"))
	}
}

// BenchmarkFindCheckout: what finding the shared store costs at start-up
// in a linked worktree, two directories below its top (compare `git
// rev-parse --git-common-dir`, a process start).
func BenchmarkFindCheckout(b *testing.B) {
	base := testdir.New(b)
	os.MkdirAll(filepath.Join(base, "main/.git/worktrees/w"), 0o755)
	os.MkdirAll(filepath.Join(base, "main/a/b"), 0o755)
	os.WriteFile(filepath.Join(base, "main/.git/worktrees/w/commondir"), []byte("../..\n"), 0o644)
	os.MkdirAll(filepath.Join(base, "w/a/b"), 0o755)
	os.WriteFile(filepath.Join(base, "w/.git"), []byte("gitdir: "+filepath.Join(base, "main/.git/worktrees/w")+"\n"), 0o644)
	root := filepath.Join(base, "w/a/b")
	for b.Loop() {
		if dir, why := FindCheckout(root).SharedStoreDir(); dir == "" {
			b.Fatal(why)
		}
	}
}
