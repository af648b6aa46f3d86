package exec

import (
	"fmt"
	"os"
	"testing"
)

// helperEnv names the variable that turns the test binary into a helper
// child process: its value is the name of a registered helper command.
const helperEnv = "VX_EXEC_TEST_HELPER"

// helpers maps a helper name to the function the child runs; the function
// returns the child's exit code. Test files register theirs in init.
var helpers = map[string]func(args []string) int{}

func registerHelper(name string, fn func(args []string) int) {
	if _, dup := helpers[name]; dup {
		panic("duplicate helper " + name)
	}
	helpers[name] = fn
}

// TestMain runs the registered helper named by helperEnv instead of the
// tests when the binary was started as a child by a test.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == TraceShimArg {
		os.Exit(RunTraceShim(os.Args[2:], os.Environ()))
	}
	if name, ok := os.LookupEnv(helperEnv); ok {
		fn, found := helpers[name]
		if !found {
			fmt.Fprintf(os.Stderr, "exec test: unknown helper %q\n", name)
			os.Exit(2)
		}
		os.Exit(fn(os.Args[1:]))
	}
	os.Exit(m.Run())
}
