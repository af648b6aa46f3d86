package run

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/config"
)

// TestMessagesNameConfigFile: in a workspace configured by vx.config.ts,
// the messages that say what to edit name vx.config.ts, not vx.json; in one
// with a vx.json, vx.json.
func TestMessagesNameConfigFile(t *testing.T) {
	for _, file := range []string{"vx.config.ts", "vx.json"} {
		t.Run(file, func(t *testing.T) {
			parse := func(src string) *config.Config {
				cfg, err := config.Parse(filepath.Join(filepath.FromSlash("/ws"), file), []byte(src))
				if err != nil {
					t.Fatal(err)
				}
				return cfg
			}
			ws := testWorkspace(t, "root", "a::build,dev,lint")
			msgs := map[string]string{}
			_, err := Plan(ws, parse(`{"tasks": {"build": {"dependsOn": ["build"]}}}`), Selection{Tasks: []string{"build"}, Filters: []string{"a"}})
			msgs["cycle"] = errString(err)
			cfg := parse(`{"tasks": {"build": {}}}`)
			lint, err := Task(cfg, ws.Project("a"), "lint")
			if err != nil {
				t.Fatal(err)
			}
			msgs["not cached"] = NotCachedReason(lint)
			build, _ := Task(cfg, ws.Project("a"), "build")
			msgs["PATH hint"] = explainNotFound(exec.ErrNotFound, []string{"PATH=/nowhere"}, build.configFile()).Error()
			msgs["stall"] = stallMessage(map[*Node]process{build: nil}, []*Node{lint}, 1, time.Second)
			msgs["nested"] = errString(Nested(ws, cfg, []string{"VX_RUN_WORKSPACE=" + ws.Root, "VX_RUN_TASK=a#build"}, "linux"))
			for what, msg := range msgs {
				if !strings.Contains(msg, file) {
					t.Errorf("%s: %q does not name %s", what, msg, file)
				}
				if file != "vx.json" && strings.Contains(msg, "vx.json") {
					t.Errorf("%s: %q names vx.json in a workspace configured by %s", what, msg, file)
				}
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
