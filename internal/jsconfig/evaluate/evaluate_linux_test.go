package evaluate

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestEvaluateBuildErrorStopsNode: node starts while esbuild bundles; when
// bundling fails, that node is stopped and reaped before the answer (it
// would otherwise wait for its manifest). Not parallel: it counts this
// process's children, and the parallel tests' nodes are children too.
func TestEvaluateBuildErrorStopsNode(t *testing.T) {
	resp, _, _ := evaluateCase(t, evalCase{files: map[string]string{"vx.config.ts": "export default {\n  tasks: { a: [1 2] },\n};\n"}})
	if resp.Error == nil {
		t.Fatal("a config that does not parse evaluated")
	}
	var kids [][]byte
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Skipf("cannot read %s: %v", f, err)
		}
		kids = append(kids, bytes.Fields(b)...)
	}
	if len(kids) > 0 {
		cmdline, _ := os.ReadFile("/proc/" + string(kids[0]) + "/cmdline")
		t.Errorf("after a build error, %d children of this process remain: %q", len(kids), bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
	}
}
