// Package vx holds what the repository ships beside the vx command itself:
// the JSON Schema of vx.json, which the npm package carries so that editors
// can check a workspace's vx.json against the installed version
// ("$schema": "./node_modules/@vxrun/vx/vx.schema.json"), and the licence,
// which every npm package and release archive carries and declares. The
// command is in cmd/vx.
package vx

import _ "embed"

// ConfigSchema is vx.schema.json: the JSON Schema (draft 2020-12) of
// vx.json. internal/config's tests keep it in step with what vx accepts.
//
//go:embed vx.schema.json
var ConfigSchema []byte

// License is the SPDX identifier of the licence in LICENSE, which the npm
// packages declare ("license") and, with LicenseText, carry.
const License = "MIT"

// LicenseText is the LICENSE file.
//
//go:embed LICENSE
var LicenseText []byte
