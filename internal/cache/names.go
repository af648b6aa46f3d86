package cache

import "github.com/vxrun/vx/internal/cache/reapi"

// The names of the cache's rooms that vx's other packages use: they import
// internal/cache alone, and the rooms stay its own.

// Property is a name and a value of a key: a variable of the task's
// environment, or a platform property ([reapi.Property]).
type Property = reapi.Property

// ActionResult is a stored entry: outputs, exit code, logs
// ([reapi.ActionResult]).
type ActionResult = reapi.ActionResult

// OutputFile and OutputSymlink are an ActionResult's outputs.
type (
	OutputFile    = reapi.OutputFile
	OutputSymlink = reapi.OutputSymlink
)

// UnmarshalActionResult decodes an entry as a store or a remote cache
// holds it.
func UnmarshalActionResult(msg []byte) (*ActionResult, error) {
	return reapi.UnmarshalActionResult(msg)
}
