//go:build unix

package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/testdir"

	"github.com/google/go-cmp/cmp"
)

func TestSummaryAfterInterrupt(t *testing.T) {
	// Ctrl-C in the middle of a run: the summary is still written, says
	// which signal stopped the run and what became of each task; so is the
	// profile, where the persistent tasks are no critical path (they run
	// until stopped).
	root := testdir.New(t)
	writeTree(t, root, map[string]string{
		"package.json":     `{"name": "root", "workspaces": ["srv", "lib"]}`,
		"vx.json":          `{"tasks": {"dev": {"persistent": true}}}`,
		"srv/package.json": `{"name": "srv", "scripts": {"dev": "touch ../up; exec sleep 30"}}`,
		"lib/package.json": `{"name": "lib", "scripts": {"dev": "exec sleep 30"}}`,
	})
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		for i := 0; i < 500; i++ {
			if _, err := os.Stat(filepath.Join(root, "up")); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel(&exec.Interrupt{Signal: syscall.SIGINT})
	}()
	var stdout, stderr bytes.Buffer
	code, err := Main(Process{Args: []string{"run", "dev", "--summary=json", "--profile", "trace.json", "--grace", "2s"}, Dir: root,
		Environ: []string{"PATH=" + os.Getenv("PATH")}, Stdout: &stdout, Stderr: &stderr, Context: ctx})
	if code != 130 || err != nil {
		t.Fatalf("exit %d, error %v, stderr:\n%s", code, err, stderr.String())
	}
	// Servers stopped by Ctrl-C did what they are for: not failures.
	if !bytes.Contains(stderr.Bytes(), []byte("vx: 2 tasks: 0 succeeded, 2 persistent stopped by SIGINT in ")) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	var doc struct {
		ExitCode int
		Signal   string
		Tasks    []struct {
			ID, Status, Signal string
			Persistent         bool
			ExitCode           *int
		}
	}
	if err := decodeLoose(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("stdout is not the summary: %v\n%s", err, stdout.String())
	}
	if doc.ExitCode != 130 || doc.Signal != "SIGINT" || len(doc.Tasks) != 2 {
		t.Fatalf("summary: %+v", doc)
	}
	for _, tk := range doc.Tasks {
		if !tk.Persistent || tk.Status != "stopped" || tk.ExitCode == nil || *tk.ExitCode != 130 || tk.Signal != "SIGINT" {
			t.Errorf("%s: persistent %v, status %q, exit code %v, signal %q; want a persistent task ended by SIGINT",
				tk.ID, tk.Persistent, tk.Status, tk.ExitCode, tk.Signal)
		}
	}
	var slices []string
	tr := readTrace(t, filepath.Join(root, "trace.json"))
	for _, e := range tr.TraceEvents {
		if e.Ph == "X" {
			slices = append(slices, fmt.Sprint(e.Name, " ", e.Args["status"], " ", e.Args["signal"], " ", e.Args["critical"]))
		}
	}
	sort.Strings(slices)
	if diff := cmp.Diff([]string{"lib#dev stopped SIGINT false", "srv#dev stopped SIGINT false"}, slices); diff != "" || len(tr.OtherData.CriticalPath) != 0 {
		t.Errorf("the profile's slices (-want +got):\n%s\ncritical path %q, want none", diff, tr.OtherData.CriticalPath)
	}
}
