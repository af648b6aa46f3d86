package cache

import "runtime"

const (
	goos   = runtime.GOOS
	goarch = runtime.GOARCH
)
