package remote

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/vxrun/vx/internal/helper"
)

// HelperName is the helper's file name on goos.
func HelperName(goos string) string {
	return helper.FileName("vx-remote", goos)
}

// FindHelper locates vx-remote: the path override wins (VX_REMOTE_HELPER),
// then the file beside vx's own executable (where `go install ./cmd/...`
// and release archives put it), then vx's PATH (see [helper.Find]). stat is
// os.Stat outside tests.
func FindHelper(override, exe, pathEnv, goos string, stat func(string) (fs.FileInfo, error)) (string, error) {
	p, err := helper.Find("vx-remote", override, "VX_REMOTE_HELPER", exe, pathEnv, goos, stat)
	var nf *helper.NotFoundError
	if errors.As(err, &nf) {
		where := "on PATH"
		if nf.Dir != "" {
			where = fmt.Sprintf("beside vx (in %s) or on PATH", nf.Dir)
		}
		return "", fmt.Errorf("remote: a remote cache is configured but the helper %s is not %s; install it with vx: go install github.com/vxrun/vx/cmd/...@latest (or set VX_REMOTE_HELPER to its path)", nf.File, where)
	}
	if err != nil {
		return "", fmt.Errorf("remote: %w", err)
	}
	return p, nil
}
