package reapi

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/vxrun/vx/internal/remote/wire"
)

// This file holds the REAPI v2 messages the cache uses
// (build.bazel.remote.execution.v2 in bazelbuild/remote-apis) and their wire
// encoding, field numbers as in remote_execution.proto. Only the fields vx
// writes are modelled; Unmarshal skips the others, as protobuf readers do.

// Digest names a blob by its SHA-256 (64 lower-case hex digits) and its size
// in bytes, as REAPI v2's Digest does. The type is the remote-cache
// protocol's ([wire.Digest]), so that the vx-remote helper needs nothing of
// the cache's packages.
type Digest = wire.Digest

// DigestOf returns the SHA-256 digest of data.
func DigestOf(data []byte) Digest {
	sum := sha256.Sum256(data)
	return Digest{Hash: hex.EncodeToString(sum[:]), Size: int64(len(data))}
}

// ValidDigest reports whether d has the shape of a SHA-256 digest.
func ValidDigest(d Digest) bool {
	return len(d.Hash) == 64 && d.Size >= 0 && IsHex(d.Hash)
}

// IsHex reports whether s is made of lower-case hex digits only.
func IsHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func marshalDigest(d Digest) []byte {
	b := appendStringField(nil, 1, d.Hash)
	b = appendVarintField(b, 2, uint64(d.Size))
	if b == nil {
		b = []byte{}
	}
	return b
}

func unmarshalDigest(msg []byte) (Digest, error) {
	var d Digest
	err := eachField(msg, func(f wireField) error {
		switch f.num {
		case 1:
			if err := f.want(wireBytes); err != nil {
				return err
			}
			d.Hash = string(f.bytes)
		case 2:
			if err := f.want(wireVarint); err != nil {
				return err
			}
			d.Size = int64(f.u)
		}
		return nil
	})
	if err == nil && !ValidDigest(d) {
		err = fmt.Errorf("%w: digest %q is not a SHA-256 digest", errWire, d.String())
	}
	return d, err
}

// Property is a name-value pair: a Platform.Property or a
// Command.EnvironmentVariable (both are {1: name, 2: value}).
type Property struct {
	Name, Value string
}

func (p Property) marshal() []byte {
	b := appendStringField(nil, 1, p.Name)
	b = appendStringField(b, 2, p.Value)
	if b == nil {
		b = []byte{}
	}
	return b
}

// Command is REAPI's Command: what runs, with which environment, where, and
// which paths it produces.
type Command struct {
	Arguments        []string   // 1
	Environment      []Property // 2, sorted by name
	WorkingDirectory string     // 6, relative to the input root
	OutputPaths      []string   // 7, sorted

	// Other holds, as read by UnmarshalCommand, the fields not modelled
	// above in their wire encoding; Marshal does not write it.
	Other []byte
}

// Marshal returns the wire encoding of c.
func (c *Command) Marshal() []byte {
	b := appendRepeatedString(nil, 1, c.Arguments)
	for _, e := range c.Environment {
		b = appendMessageField(b, 2, e.marshal())
	}
	b = appendStringField(b, 6, c.WorkingDirectory)
	b = appendRepeatedString(b, 7, c.OutputPaths)
	return b
}

// UnmarshalCommand decodes a Command. The fields vx does not model are
// kept, in their wire encoding, in Other: two Commands whose modelled
// fields agree still differ when Other does.
func UnmarshalCommand(msg []byte) (*Command, error) {
	c := &Command{}
	err := eachField(msg, func(f wireField) error {
		switch f.num {
		case 1, 6, 7:
			if err := f.want(wireBytes); err != nil {
				return err
			}
			switch f.num {
			case 1:
				c.Arguments = append(c.Arguments, string(f.bytes))
			case 6:
				c.WorkingDirectory = string(f.bytes)
			case 7:
				c.OutputPaths = append(c.OutputPaths, string(f.bytes))
			}
		case 2:
			if err := f.want(wireBytes); err != nil {
				return err
			}
			p, err := unmarshalProperty(f.bytes)
			if err != nil {
				return err
			}
			c.Environment = append(c.Environment, p)
		default:
			c.Other = appendField(c.Other, f)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

func unmarshalProperty(msg []byte) (Property, error) {
	var p Property
	err := eachField(msg, func(f wireField) error {
		if f.num != 1 && f.num != 2 {
			return nil
		}
		if err := f.want(wireBytes); err != nil {
			return err
		}
		if f.num == 1 {
			p.Name = string(f.bytes)
		} else {
			p.Value = string(f.bytes)
		}
		return nil
	})
	return p, err
}

// appendField appends f's wire encoding to b.
func appendField(b []byte, f wireField) []byte {
	b = appendTag(b, f.num, f.wt)
	if f.wt == wireBytes {
		b = appendVarint(b, uint64(len(f.bytes)))
		return append(b, f.bytes...)
	}
	// A number, whatever its wire width: what matters is that a change shows.
	return appendVarint(b, f.u)
}

// Action is REAPI's Action: the digests of a Command and of an input root,
// a salt and a platform. Its digest is the cache key.
type Action struct {
	CommandDigest   Digest     // 1
	InputRootDigest Digest     // 2
	Salt            []byte     // 9
	Platform        []Property // 10, sorted by name

	// Other holds, as read by UnmarshalAction, the fields not modelled
	// above in their wire encoding; Marshal does not write it.
	Other []byte
}

// Marshal returns the wire encoding of a.
func (a *Action) Marshal() []byte {
	b := appendMessageField(nil, 1, marshalDigest(a.CommandDigest))
	b = appendMessageField(b, 2, marshalDigest(a.InputRootDigest))
	b = appendBytesField(b, 9, a.Salt)
	if len(a.Platform) > 0 {
		var p []byte
		for _, prop := range a.Platform {
			p = appendMessageField(p, 1, prop.marshal())
		}
		b = appendMessageField(b, 10, p)
	}
	return b
}

// UnmarshalAction decodes an Action.
func UnmarshalAction(msg []byte) (*Action, error) {
	a := &Action{}
	err := eachField(msg, func(f wireField) error {
		var err error
		switch f.num {
		case 1:
			if err = f.want(wireBytes); err == nil {
				a.CommandDigest, err = unmarshalDigest(f.bytes)
			}
		case 2:
			if err = f.want(wireBytes); err == nil {
				a.InputRootDigest, err = unmarshalDigest(f.bytes)
			}
		case 9:
			if err = f.want(wireBytes); err == nil {
				a.Salt = append([]byte(nil), f.bytes...)
			}
		case 10:
			if err = f.want(wireBytes); err == nil {
				err = eachField(f.bytes, func(g wireField) error {
					if g.num != 1 {
						return nil
					}
					if err := g.want(wireBytes); err != nil {
						return err
					}
					p, err := unmarshalProperty(g.bytes)
					a.Platform = append(a.Platform, p)
					return err
				})
			}
		default:
			a.Other = appendField(a.Other, f)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// OutputFile is one file of an ActionResult. Mode carries the file's
// permission bits in NodeProperties.unix_mode (REAPI v2.1); Executable is
// is_executable, which readers that ignore unix_mode use.
type OutputFile struct {
	Path       string // 1, slash-separated, relative to the working directory
	Digest     Digest // 2
	Executable bool   // 4
	Mode       uint32 // 7: NodeProperties{3: UInt32Value{1: mode}}; 0 = absent
}

// OutputSymlink is one symbolic link of an ActionResult.
type OutputSymlink struct {
	Path   string // 1
	Target string // 2, as the link holds it
}

// ActionResult is REAPI's ActionResult: the outputs of a run, its exit
// code, and its stdout and stderr as blobs.
type ActionResult struct {
	OutputFiles    []OutputFile    // 2
	ExitCode       int32           // 4
	StdoutDigest   Digest          // 6
	StderrDigest   Digest          // 8
	OutputSymlinks []OutputSymlink // 12
	// Start and End are ExecutedActionMetadata's execution_start_timestamp
	// and execution_completed_timestamp (field 9: {7, 8}); zero = absent.
	Start, End time.Time
}

// Blobs lists the blobs r names: its logs and its output files.
func (r *ActionResult) Blobs() []Digest {
	ds := []Digest{r.StdoutDigest, r.StderrDigest}
	for _, f := range r.OutputFiles {
		ds = append(ds, f.Digest)
	}
	out := ds[:0]
	for _, d := range ds {
		if d.Hash != "" {
			out = append(out, d)
		}
	}
	return out
}

func marshalTimestamp(t time.Time) []byte {
	b := appendVarintField(nil, 1, uint64(t.Unix()))
	b = appendVarintField(b, 2, uint64(t.Nanosecond()))
	if b == nil {
		b = []byte{}
	}
	return b
}

func unmarshalTimestamp(msg []byte) (time.Time, error) {
	var sec, nsec int64
	err := eachField(msg, func(f wireField) error {
		switch f.num {
		case 1, 2:
			if err := f.want(wireVarint); err != nil {
				return err
			}
			if f.num == 1 {
				sec = int64(f.u)
			} else {
				nsec = int64(int32(f.u))
			}
		}
		return nil
	})
	return time.Unix(sec, nsec), err
}

// Marshal returns the wire encoding of r.
func (r *ActionResult) Marshal() []byte {
	var b []byte
	for _, f := range r.OutputFiles {
		m := appendStringField(nil, 1, f.Path)
		m = appendMessageField(m, 2, marshalDigest(f.Digest))
		m = appendBoolField(m, 4, f.Executable)
		if f.Mode != 0 {
			mode := appendMessageField(nil, 3, appendVarintField(nil, 1, uint64(f.Mode)))
			m = appendMessageField(m, 7, mode)
		}
		b = appendMessageField(b, 2, m)
	}
	b = appendVarintField(b, 4, uint64(int64(r.ExitCode)))
	if r.StdoutDigest.Hash != "" {
		b = appendMessageField(b, 6, marshalDigest(r.StdoutDigest))
	}
	if r.StderrDigest.Hash != "" {
		b = appendMessageField(b, 8, marshalDigest(r.StderrDigest))
	}
	if !r.Start.IsZero() || !r.End.IsZero() {
		var m []byte
		if !r.Start.IsZero() {
			m = appendMessageField(m, 7, marshalTimestamp(r.Start))
		}
		if !r.End.IsZero() {
			m = appendMessageField(m, 8, marshalTimestamp(r.End))
		}
		b = appendMessageField(b, 9, m)
	}
	for _, s := range r.OutputSymlinks {
		m := appendStringField([]byte{}, 1, s.Path) // present even when empty: an element of a repeated field
		m = appendStringField(m, 2, s.Target)
		b = appendMessageField(b, 12, m)
	}
	return b
}

// UnmarshalActionResult decodes an ActionResult. Digests must be SHA-256;
// deprecated fields (output_file_symlinks) are read into OutputSymlinks,
// and output_directories (which vx never writes) make it an error, since
// restoring the result without them would be wrong.
func UnmarshalActionResult(msg []byte) (*ActionResult, error) {
	r := &ActionResult{}
	err := eachField(msg, func(f wireField) error {
		switch f.num {
		case 2:
			if err := f.want(wireBytes); err != nil {
				return err
			}
			of, err := unmarshalOutputFile(f.bytes)
			if err != nil {
				return err
			}
			r.OutputFiles = append(r.OutputFiles, of)
		case 3, 11:
			return fmt.Errorf("%w: the result holds output directories, which vx does not restore", errWire)
		case 4:
			if err := f.want(wireVarint); err != nil {
				return err
			}
			r.ExitCode = int32(f.u)
		case 5, 7:
			if len(f.bytes) > 0 {
				return fmt.Errorf("%w: inline stdout or stderr is not supported", errWire)
			}
		case 6, 8:
			if err := f.want(wireBytes); err != nil {
				return err
			}
			d, err := unmarshalDigest(f.bytes)
			if err != nil {
				return err
			}
			if f.num == 6 {
				r.StdoutDigest = d
			} else {
				r.StderrDigest = d
			}
		case 9:
			if err := f.want(wireBytes); err != nil {
				return err
			}
			return eachField(f.bytes, func(g wireField) error {
				if g.num != 7 && g.num != 8 {
					return nil
				}
				if err := g.want(wireBytes); err != nil {
					return err
				}
				t, err := unmarshalTimestamp(g.bytes)
				if g.num == 7 {
					r.Start = t
				} else {
					r.End = t
				}
				return err
			})
		case 10, 12:
			if err := f.want(wireBytes); err != nil {
				return err
			}
			var s OutputSymlink
			err := eachField(f.bytes, func(g wireField) error {
				if g.num == 1 || g.num == 2 {
					if err := g.want(wireBytes); err != nil {
						return err
					}
					if g.num == 1 {
						s.Path = string(g.bytes)
					} else {
						s.Target = string(g.bytes)
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			r.OutputSymlinks = append(r.OutputSymlinks, s)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

func unmarshalOutputFile(msg []byte) (OutputFile, error) {
	var of OutputFile
	hasDigest := false
	err := eachField(msg, func(f wireField) error {
		switch f.num {
		case 1:
			if err := f.want(wireBytes); err != nil {
				return err
			}
			of.Path = string(f.bytes)
		case 2:
			if err := f.want(wireBytes); err != nil {
				return err
			}
			d, err := unmarshalDigest(f.bytes)
			of.Digest, hasDigest = d, true
			return err
		case 4:
			if err := f.want(wireVarint); err != nil {
				return err
			}
			of.Executable = f.u != 0
		case 5:
			if len(f.bytes) > 0 {
				return fmt.Errorf("%w: inline file contents are not supported", errWire)
			}
		case 7:
			if err := f.want(wireBytes); err != nil {
				return err
			}
			return eachField(f.bytes, func(g wireField) error {
				if g.num != 3 {
					return nil
				}
				if err := g.want(wireBytes); err != nil {
					return err
				}
				return eachField(g.bytes, func(h wireField) error {
					if h.num == 1 {
						if err := h.want(wireVarint); err != nil {
							return err
						}
						of.Mode = uint32(h.u)
					}
					return nil
				})
			})
		}
		return nil
	})
	if err == nil && !hasDigest {
		err = fmt.Errorf("%w: output file %q has no digest", errWire, of.Path)
	}
	return of, err
}
