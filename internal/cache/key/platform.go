package key

import "runtime"

const (
	goos   = runtime.GOOS
	goarch = runtime.GOARCH
)
