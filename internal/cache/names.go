package cache

import (
	"github.com/vxrun/vx/internal/cache/key"
	"github.com/vxrun/vx/internal/cache/outputs"
	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/cache/store"
)

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

// Store is the local store ([store.Store]); OpenStore opens one
// ([store.OpenStore]).
type Store = store.Store

// OpenStore returns the store in dir ([store.OpenStore]).
func OpenStore(dir string) (*Store, error) { return store.OpenStore(dir) }

// NotStoreError is a directory vx did not make, refused as a store.
type NotStoreError = store.NotStoreError

// PruneOptions say what [Store.Prune] removes; Status is what
// [Store.Status] reads.
type (
	PruneOptions = store.PruneOptions
	Status       = store.Status
)

// CheckoutFile returns the path of the store file name for the checkout
// whose workspace root is root ([store.CheckoutFile]).
func CheckoutFile(dir, root, name string) string { return store.CheckoutFile(dir, root, name) }

// Checkout is the git checkout a workspace is in; FindCheckout finds it
// ([store.FindCheckout]).
type Checkout = store.Checkout

// FindCheckout returns the checkout the workspace whose root is root is in
// ([store.FindCheckout]).
func FindCheckout(root string) Checkout { return store.FindCheckout(root) }

// The key's computation ([key.Computer]): what a key is made of, and the
// rules of its inputs.
type (
	TaskSpec     = key.TaskSpec
	Key          = key.Key
	InputFile    = key.InputFile
	DepKey       = key.DepKey
	Inputs       = key.Inputs
	EnvKey       = key.EnvKey
	InputMatcher = key.InputMatcher
)

// SigningEnvKey returns the EnvKey derived from a remote cache's signing
// key ([key.SigningEnvKey]).
func SigningEnvKey(signingKey string) *EnvKey { return key.SigningEnvKey(signingKey) }

// PublicEnvKey returns the EnvKey every vx knows ([key.PublicEnvKey]).
func PublicEnvKey() *EnvKey { return key.PublicEnvKey() }

// NewInputMatcher returns the matcher of t's inputs ([key.NewInputMatcher]).
func NewInputMatcher(t *TaskSpec, store string) *InputMatcher { return key.NewInputMatcher(t, store) }

// InputDirs returns the paths under which t's input files can be
// ([key.InputDirs]).
func InputDirs(t *TaskSpec) []string { return key.InputDirs(t) }

// OutputsMatcher returns whether a path is one of the outputs that the
// globs outputs of the project at relDir match ([key.OutputsMatcher]).
func OutputsMatcher(globs []string, relDir string) func(p string) bool {
	return key.OutputsMatcher(globs, relDir)
}

// OutputsDigest returns one digest of the files and symbolic links under
// the project directory dir that the output globs match ([outputs.Hash]).
func OutputsDigest(globs []string, dir, storeDir string) (string, error) {
	return outputs.Hash(globs, dir, storeDir)
}
